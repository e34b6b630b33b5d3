# Layout.AUTO against measurement: every candidate input layout of layout-sensitive programs
# run on the executor in those layouts, the cost model's choice checked against the fastest.
add_executable(auto_layout_vs_measured auto_layout_vs_measured.cc)
target_link_libraries(auto_layout_vs_measured PRIVATE axe::axe axe_build_flags)
