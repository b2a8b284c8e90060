"""The book layer: what the chapters show.

Tables (:mod:`mope.book.tables`; the claims tables, :mod:`mope.book.claims_tables`; Markdown tables in
general, :mod:`mope.book.markdown_tables`), figures of runs (reproducing Table 2,
:mod:`mope.book.reproduction_figures`; what MoPE learns, :mod:`mope.book.learned_figures`; the stress tests,
:mod:`mope.book.stress_figures`; how every figure looks, :mod:`mope.book.figure_style`) and figures that need no
run (:mod:`mope.book.plots`), the introduction's figure of every claim on every preset
(:mod:`mope.book.claims_figure`), one colour per model (:mod:`mope.book.palette`), the interactive
figures (:mod:`mope.book.explorer`), which runs a chapter shows (:mod:`mope.book.chapter_runs`) and
where each number comes from (:mod:`mope.book.run_records`). Only the command line sits above it.
"""
