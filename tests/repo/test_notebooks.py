"""Every notebook in notebooks/ is executed top to bottom, so none can rot; a notebook that plots shows its figures."""
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

PLOTS = (".plot(", "plt.", "plot_")   # source text of a cell that draws a figure
NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert any(p.name == "01_regret_vs_bounds.ipynb" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not [c for c in code if "matplotlib.use" in c.source], "a notebook must not pick a backend: it hides figures"
    for cell in code:
        if any(p in cell.source for p in PLOTS):   # every plotting cell leaves a PNG in the notebook
            assert any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])), cell.source
