"""Summary tables with one number format per column and "n/a" (with a footnote) for a missing value.

A table is a list of `Column` specs applied to a DataFrame (or a list of dicts): each
column says which key it shows, its header, how its values are written and what a missing
value means.  Missing values (None, NaN, pandas NA) print as ``n/a`` and the table ends with
one footnote per meaning, so a reader never sees ``NaN`` or ``None`` and always learns why a
cell is empty.  The same specs write plain text (the CLI) and Markdown (report.md).

The default number format, ``"auto"``, is chosen once per column: fixed point with four
significant digits on the column's largest value when every value lies within [1e-3, 1e5),
scientific notation with three decimals otherwise; so a column never mixes notations.

>>> import math
>>> cols = [Column("name", "learner"), Column("regret"), Column("ratio", fmt=".3f", na="no applicable bound")]
>>> print(format_table([{"name": "meg", "regret": 12.5, "ratio": 0.5},
...                     {"name": "ftl", "regret": 3.25, "ratio": math.nan}], cols))
learner  regret  ratio
meg       12.50  0.500
ftl        3.25   n/a¹
<BLANKLINE>
¹ n/a: no applicable bound
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

NA = "n/a"
MARKS = "¹²³⁴⁵⁶⁷⁸⁹"


@dataclass(frozen=True)
class Column:
    """One column of a summary table.

    Parameters
    ----------
    key : str
        The row key (DataFrame column) whose values the column shows.
    header : str or None, default None
        The header; ``None`` uses ``key``.
    fmt : str or callable, default "auto"
        A format spec for numbers (``".3f"``, ``"d"``, ``".1f"``), ``"auto"`` (one fixed or scientific
        format chosen for the whole column, see the module docstring), ``"text"`` (``str``), or a callable
        value → str.
    na : str, default "not available"
        What a missing value in this column means; it becomes the footnote of its ``n/a`` cells.
    """

    key: str
    header: str | None = None
    fmt: str | Callable = "auto"
    na: str = "not available"

    @property
    def title(self) -> str:
        return self.header or self.key


def missing(value) -> bool:
    """True for None, NaN and pandas' NA/NaT (the values a table prints as ``n/a``).

    Parameters
    ----------
    value : object
        A cell value.
    """
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN and NaT differ from themselves
    except (TypeError, ValueError):  # pandas.NA refuses bool()
        return True


def _auto(values: list) -> Callable:
    nums = [abs(float(x)) for x in values if isinstance(x, (int, float, np.number)) and not isinstance(x, bool)
            and math.isfinite(float(x))]
    if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in values):
        return lambda x: f"{x:d}"
    nonzero = [x for x in nums if x > 0]
    if not nonzero or (min(nonzero) >= 1e-3 and max(nonzero) < 1e5):
        top = max(nonzero, default=1.0)
        decimals = max(0, 3 - math.floor(math.log10(top)))
        return lambda x: f"{x:.{decimals}f}"
    return lambda x: f"{x:.3e}"


def _formatter(col: Column, values: list) -> Callable:
    if callable(col.fmt):
        return col.fmt
    if col.fmt == "text":
        return str
    if col.fmt == "auto":
        if any(isinstance(x, str) or isinstance(x, (bool, np.bool_)) for x in values):
            return str
        return _auto(values)
    spec = col.fmt
    return lambda x: format(x, spec)


def _rows(data) -> list[dict]:
    if hasattr(data, "to_dict"):
        return data.to_dict("records")
    return [dict(r) for r in data]


def _cells(rows: list[dict], columns: list[Column]) -> tuple[list[str], list[list[str]], list[str]]:
    """(headers, rows of cell strings, footnotes) for ``rows`` under ``columns``."""
    notes: list[str] = []
    cells = [[""] * len(columns) for _ in rows]
    for j, col in enumerate(columns):
        present = [r.get(col.key) for r in rows if not missing(r.get(col.key))]
        write = _formatter(col, present)
        for i, r in enumerate(rows):
            value = r.get(col.key)
            if missing(value):
                if col.na not in notes:
                    notes.append(col.na)
                cells[i][j] = NA + MARKS[notes.index(col.na) % len(MARKS)]
            else:
                cells[i][j] = write(value)
    footnotes = [f"{MARKS[k % len(MARKS)]} {NA}: {text}" for k, text in enumerate(notes)]
    return [c.title for c in columns], cells, footnotes


def format_table(data, columns: list[Column], markdown: bool = False) -> str:
    """The table of ``data`` under ``columns`` as aligned text (or Markdown), footnotes after it.

    Text columns are left-aligned, number columns (and their ``n/a`` cells) right-aligned.

    Parameters
    ----------
    data : pandas.DataFrame or list of dict
        The rows.
    columns : list of Column
        What to show and how.
    markdown : bool, default False
        Write a Markdown table instead of aligned text.
    """
    rows = _rows(data)
    headers, cells, footnotes = _cells(rows, columns)
    numeric = [bool(rows) and all(missing(r.get(c.key)) or (isinstance(r.get(c.key), (int, float, np.number))
                                                            and not isinstance(r.get(c.key), (bool, np.bool_)))
                                  for r in rows) for c in columns]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join("---:" if num else "---" for num in numeric) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in cells]
    else:
        widths = [max([len(h)] + [len(row[j]) for row in cells]) for j, h in enumerate(headers)]

        def line(values):
            return "  ".join(val.rjust(w) if num else val.ljust(w)
                             for val, w, num in zip(values, widths, numeric, strict=True)).rstrip()
        lines = [line(headers)] + [line(row) for row in cells]
    if footnotes:
        lines += [""] + footnotes
    return "\n".join(lines)
