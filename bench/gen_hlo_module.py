#!/usr/bin/env python3
"""Writes a large partitioned HLO module (about 50 MB by default) for bench/hlo_throughput.sh.

The module looks like compiled.as_text() of a deep SPMD model on 8 devices: a header with
num_partitions=8, small reducer computations, and an ENTRY %main_spmd computation whose
layers are sharded fusions with metadata, all-reduces, all-gathers (iota and mesh-axes
replica groups), reduce-scatters and collective-permutes.

  python3 bench/gen_hlo_module.py --mb 50 > /tmp/module.hlo
"""
import argparse
import sys

LAYER = """\
  %fusion.{i} = bf16[512,1024]{{1,0}} fusion(%x.{p}, %w.{i}), kind=kCustom, calls=%fused_computation, sharding={{devices=[4,1,2]<=[8] last_tile_dim_replicate}}, metadata={{op_name="jit(step)/layer_{i}/dot_general" source_file="/home/user/model/transformer.py" source_line={line}}}
  %all-reduce.{i} = bf16[512,1024]{{1,0}} all-reduce(%fusion.{i}), channel_id={c0}, replica_groups=[4,2]<=[8], use_global_device_ids=true, to_apply=%add, metadata={{op_name="jit(step)/layer_{i}/psum"}}
  %all-gather.{i} = bf16[1024,1024]{{1,0}} all-gather(%all-reduce.{i}), channel_id={c1}, replica_groups=mesh['x'=2,'y'=4] {{'x'}}, dimensions={{0}}, use_global_device_ids=true, metadata={{op_name="jit(step)/layer_{i}/all_gather"}}
  %reduce-scatter.{i} = bf16[256,1024]{{1,0}} reduce-scatter(%all-gather.{i}), channel_id={c2}, replica_groups={{{{0,1,2,3}},{{4,5,6,7}}}}, use_global_device_ids=true, dimensions={{0}}, to_apply=%add, metadata={{op_name="jit(step)/layer_{i}/psum_scatter"}}
  %collective-permute.{i} = bf16[256,1024]{{1,0}} collective-permute(%reduce-scatter.{i}), channel_id={c3}, source_target_pairs={{{{0,1}},{{1,2}},{{2,3}},{{3,4}},{{4,5}},{{5,6}},{{6,7}},{{7,0}}}}, metadata={{op_name="jit(step)/layer_{i}/ppermute"}}
  %x.{i} = bf16[512,1024]{{1,0}} fusion(%collective-permute.{i}, %fusion.{i}), kind=kLoop, calls=%fused_add, sharding={{devices=[4,2]<=[8]}}, metadata={{op_name="jit(step)/layer_{i}/add" source_file="/home/user/model/transformer.py" source_line={line}}}
"""

HEADER = """\
HloModule jit_step, is_scheduled=true, entry_computation_layout={{(bf16[512,1024]{{1,0}})->bf16[512,1024]{{1,0}}}}, num_partitions=8

%add (x: bf16[], y: bf16[]) -> bf16[] {{
  %x = bf16[] parameter(0)
  %y = bf16[] parameter(1)
  ROOT %sum = bf16[] add(%x, %y)
}}

%fused_computation (p0: bf16[512,1024], p1: bf16[1024,1024]) -> bf16[512,1024] {{
  %p0 = bf16[512,1024]{{1,0}} parameter(0)
  %p1 = bf16[1024,1024]{{1,0}} parameter(1)
  ROOT %dot = bf16[512,1024]{{1,0}} dot(%p0, %p1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}

%fused_add (p0: bf16[256,1024], p1: bf16[512,1024]) -> bf16[512,1024] {{
  %p0 = bf16[256,1024]{{1,0}} parameter(0)
  %p1 = bf16[512,1024]{{1,0}} parameter(1)
  ROOT %out = bf16[512,1024]{{1,0}} copy(%p1)
}}

ENTRY %main_spmd (x.0: bf16[512,1024]) -> bf16[512,1024] {{
  %x.0 = bf16[512,1024]{{1,0}} parameter(0), sharding={{devices=[4,2]<=[8]}}, metadata={{op_name="x"}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50, help="approximate size in MB")
    args = parser.parse_args()
    out = sys.stdout
    out.write(HEADER.format())
    target = int(args.mb * 1e6)
    written, i = 0, 1
    while written < target:
        # Weights are parameters too: one per layer.
        w = f"  %w.{i} = bf16[1024,1024]{{1,0}} parameter({i}), sharding={{replicated}}\n"
        layer = LAYER.format(i=i, p=i - 1, line=100 + i % 900, c0=4 * i, c1=4 * i + 1,
                             c2=4 * i + 2, c3=4 * i + 3)
        out.write(w)
        out.write(layer)
        written += len(w) + len(layer)
        i += 1
    out.write(f"  ROOT %result = bf16[512,1024]{{1,0}} copy(%x.{i - 1})\n}}\n")


if __name__ == "__main__":
    main()
