#!/usr/bin/env python3
"""Writes explorer requests whose numbers sit at the edges of int64, one file per request.

libFuzzer mutates its way to large numbers slowly; this sweep starts there. Every kind of
/api request gets shapes, tiles, paddings, strides, offsets and index-map constants drawn from
0, 1, small values and 2^31 ... 2^63 - 1, and empty arrays (a zero dimension) whose other
dimensions are huge, the family of inputs that passes every element cap. Replay the files with
the ASan + UBSan fuzz build, which stops on the first undefined behaviour:

    python3 fuzz/sweep/explorer_boundaries.py /tmp/sweep --seed 1 --count 5000
    build/fuzz/fuzz/axe_fuzz_explorer_request -runs=0 -artifact_prefix=/tmp/sweep- /tmp/sweep

The same seed and count always give the same files.
"""
import argparse
import os
import random
import urllib.parse

EDGES = [0, 0, 1, 1, 2, 3, 5, 7, 8, 128, 2**31 - 1, 2**32, 2**40, 2**55, 2**56, 2**60,
         2**61, 2**62, 2**62 + 1, 2**63 - 2, 2**63 - 1]


class Sweep:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def num(self):
        return str(self.rng.choice(EDGES))

    def dims(self, rank):
        return ",".join(self.num() for _ in range(rank))

    def perm(self, rank):
        order = list(range(rank))
        self.rng.shuffle(order)
        return ",".join(map(str, order))

    def tiles(self, rank):
        levels = []
        for _ in range(self.rng.randint(1, 3)):
            width = self.rng.randint(1, min(3, rank + 1))
            levels.append("T(%s)" % ",".join(
                "*" if self.rng.random() < 0.15 else self.num() for _ in range(width)))
        return "".join(levels)

    def grid(self):
        rank = self.rng.randint(1, 3)
        shape = self.dims(rank)
        if self.rng.random() < 0.5:  # an empty array with huge other dimensions
            shape = ",".join("0" if d == 0 else self.num() for d in range(rank))
        block = self.rng.choice([
            "none", "0," * (rank - 1) + "0",
            ",".join(self.rng.choice(["0", "1", "None", "Element(%s,(%s,%s))" % (
                self.num(), self.num(), self.num()), "Blocked(%s)" % self.num()])
                     for _ in range(rank))])
        names = "ijk"[:rank]
        terms = [self.rng.choice([n, "-%s" % n, "%s*%s" % (n, self.num()), "-%s*%s" % (
            n, self.num()), "%s-%s" % (n, self.num()), "%s//%s" % (n, self.num())])
                 for n in names]
        fields = {"shape": shape, "block": block,
                  "grid": ",".join(str(self.rng.randint(1, 3)) for _ in range(rank))}
        if self.rng.random() < 0.8:
            fields["index_map"] = "lambda %s: (%s,)" % (",".join(names), ",".join(terms))
        if self.rng.random() < 0.3:
            fields["dtype"] = self.rng.choice(["int8", "float64", "bool", "int32"])
        return "grid", fields

    def xla(self):
        rank = self.rng.randint(1, 4)
        dims = [self.num() for _ in range(rank)]
        if self.rng.random() < 0.2:
            dims[self.rng.randrange(rank)] = "<=" + self.num()
        layout = self.rng.choice([
            "", "{%s}" % self.perm(rank), "{%s:%s}" % (self.perm(rank), self.tiles(rank)),
            "{%s:%s%s}" % (self.perm(rank), self.tiles(rank), self.rng.choice(
                ["E(%s)" % self.num(), "S(%s)" % self.num(), ""]))])
        element = self.rng.choice(["f32", "s4", "u2", "pred", "c128", "bf16", "s64"])
        return "xla", {"shape": "%s[%s]%s" % (element, ",".join(dims), layout)}

    def sharding(self):
        rank = self.rng.randint(1, 3)
        dims = self.dims(rank)
        if self.rng.random() < 0.5:
            fields = {"shape": dims,
                      "mesh": ",".join("%s=%d" % (a, self.rng.choice([1, 2, 3, 4, 8, 16]))
                                       for a in "xyz"[:self.rng.randint(1, 3)]),
                      "spec": self.rng.choice(["P()", "P('x')", "P('x','y')", "P(None,'x')",
                                               "P(('x','y'))", "P(('z','x'),'y')"])}
        else:
            tiles = [self.rng.choice([1, 2, 3, 4, 8]) for _ in range(self.rng.randint(1, rank + 1))]
            devices = 1
            for t in tiles:
                devices *= t
            listed = ",".join(map(str, tiles))
            fields = {"shape": dims, "hlo": self.rng.choice([
                "{devices=[%s]<=[%d]}" % (listed, devices),
                "{devices=[%s]<=[%d] last_tile_dim_replicate}" % (listed, devices),
                "{replicated}", "{maximal device=%s}" % self.num(), "{manual}"])}
        if self.rng.random() < 0.4:
            fields["shape"] = "%s[%s]%s" % (
                self.rng.choice(["f32", "s8", "pred", "bf16", "s4"]), dims,
                self.rng.choice(["", "{%s}" % self.perm(rank),
                                 "{%s:%s}" % (self.perm(rank), self.tiles(rank))]))
        return "sharding", fields

    def layout(self):
        rank = self.rng.randint(1, 4)
        strides = ",".join(self.rng.choice([self.num(), self.num() + "@m", "1@lane",
                                            self.num() + "@warp", "-" + self.num()])
                           for _ in range(rank))
        text = "S[(%s):(%s)]%s" % (self.dims(rank), strides, self.rng.choice([
            "", " + R[%s:%s@warp]" % (self.num(), self.num()), " + %s@m" % self.num(),
            " + -%s@m" % self.num()]))
        fields = {"layout": text}
        if self.rng.random() < 0.5:
            fields["shape"] = self.dims(self.rng.randint(1, 3))
        if self.rng.random() < 0.2:
            fields["color"] = self.rng.choice(["m", "warp", "lane"])
        return "layout", fields


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="directory for the request files (created)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=5000, help="requests per kind")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    sweep = Sweep(args.seed)
    for make in (sweep.grid, sweep.xla, sweep.sharding, sweep.layout):
        for n in range(args.count):
            kind, fields = make()
            target = "/api/%s?%s" % (kind, urllib.parse.urlencode(fields))
            with open(os.path.join(args.out, "%s-%d" % (kind, n)), "w") as f:
                f.write("GET " + target)
    print("wrote %d requests to %s" % (4 * args.count, args.out))


if __name__ == "__main__":
    main()
