"""Sphinx extension: the ``{run-times}`` directive of the how-to-run page, a table of measured times.

The page is read before the chapters are executed, so the directive leaves a placeholder; when the page
is written (after every page has been read, and every chapter executed), the placeholder becomes the
table of :func:`mope.book.run_times.time_table`: each chapter's execution time as MyST-NB measured it in
this build, and the wall times of the stored runs of the presets the book shows and ``cpu-long``.
"""
from __future__ import annotations

import os

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

HEADER = ("what", "how long", "measured how")


class run_times_node(nodes.General, nodes.Element):
    """Where the table goes."""


class RunTimes(SphinxDirective):
    def run(self):
        return [run_times_node()]


def table(rows) -> nodes.table:
    """A docutils table of ``HEADER`` and ``rows`` (text cells; a cell in backquotes is set as code)."""
    table_node = nodes.table(classes=["colwidths-auto"])
    group = nodes.tgroup(cols=len(HEADER))
    table_node += group
    group += [nodes.colspec(colwidth=1) for _ in HEADER]

    def row(cells):
        row_node = nodes.row()
        for cell in cells:
            paragraph = nodes.paragraph()
            for k, part in enumerate(cell.split("`")):
                if part:
                    paragraph += nodes.literal(text=part) if k % 2 else nodes.Text(part)
            row_node += nodes.entry("", paragraph)
        return row_node

    head, body = nodes.thead(), nodes.tbody()
    head += row(HEADER)
    body += [row(cells) for cells in rows]
    group += [head, body]
    return table_node


class FillRunTimes(SphinxPostTransform):
    default_priority = 8

    def run(self, **kwargs) -> None:
        placeholders = list(self.document.findall(run_times_node))
        if not placeholders:
            return
        from myst_nb.sphinx_ import NbMetadataCollector

        from mope.book import chapter_runs, run_times
        from mope.store import results

        chapters = []
        for docname in sorted(name for name in self.env.found_docs if name.startswith("notebooks/")):
            data = NbMetadataCollector.get_exec_data(self.env, docname) or {}
            title = self.env.titles[docname].astext() if docname in self.env.titles else docname
            chapters.append((run_times.chapter_name(docname, title), data.get("runtime")))
        runs = {preset: results.load_results(preset) for preset in chapter_runs.RECORDED_PRESETS}
        filled = table(run_times.time_table(chapters, runs, os.cpu_count() or 1))
        for placeholder in placeholders:
            placeholder.replace_self(filled.deepcopy())


def setup(app):
    app.add_node(run_times_node)
    app.add_directive("run-times", RunTimes)
    app.add_post_transform(FillRunTimes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
