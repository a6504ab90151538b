"""Every notebook in notebooks/ runs top to bottom (nbclient, the venv's python3 kernel).

Notebooks are committed without outputs; each keeps its budget small (seconds to a
minute on 2 cores). A notebook that needs longer is marked slow in ``SLOW``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
SLOW: set[str] = set()  # names of notebooks taking more than about a minute
CELL_TIMEOUT = 600


def test_notebooks_exist():
    names = {p.name for p in NOTEBOOKS}
    assert {"quickstart.ipynb", "training_look.ipynb"} <= names


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in SLOW else [])
        for p in NOTEBOOKS
    ],
)
def test_notebook_is_clean_and_runs(path: Path):
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["nbformat"] == 4
    nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:  # committed without outputs
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path.name} has outputs"
    client = nbclient.NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert not errors
