"""The plot of the peer benchmark (``benchmarks/results/peer.png``), drawn in the peers'
environment, which has matplotlib: ``python -m benchmarks.peer.plot RESULT.json OUT.png``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

NAMES = {
    "overstory": "Overstory",
    "raptor_collapsed": "RAPTOR pack",
    "auto_merging": "Auto-merging",
}


def plot(result: dict[str, Any], path: Path) -> None:
    """Build and re-index cost per system: wall seconds and summarizer calls, log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, seconds, calls, colors = [], [], [], []
    palette = {"overstory": "#dd8452", "raptor_collapsed": "#4c72b0", "auto_merging": "#55a868"}
    for name, fig in result["postgresql"]["systems"].items():
        steps = [("build", fig["build"])]
        steps += [
            (f"{rev} {mode}", row)
            for rev, modes in fig["reindex"].items()
            for mode, row in modes.items()
        ]
        for step, row in steps:
            labels.append(f"{NAMES[name]}: {step}")
            seconds.append(row["seconds"])
            calls.append(row["summarizer_calls"])
            colors.append(palette[name])
    fig_, axes = plt.subplots(1, 2, figsize=(10, 0.32 * len(labels) + 1.2), dpi=80, sharey=True)
    y = list(range(len(labels)))
    for ax, values, title, floor, shown in (
        (axes[0], seconds, "wall seconds", 0.01, lambda v: f" {v:.2g}" if v < 10 else f" {v:.0f}"),
        (axes[1], calls, "summarizer calls", 0.5, lambda v: f" {v:d}"),
    ):
        drawn = [max(v, floor) for v in values]  # log scale: a zero drawn at the floor
        ax.barh(y, drawn, color=colors)
        ax.set_xscale("log")
        ax.set_title(f"{title} (log scale), PostgreSQL manual")
        for yi, v, d in zip(y, values, drawn, strict=True):
            ax.text(d, yi, shown(v), va="center", fontsize=7)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(labels, fontsize=7)
    axes[0].invert_yaxis()
    fig_.tight_layout()
    fig_.savefig(path)
    plt.close(fig_)


if __name__ == "__main__":
    plot(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")), Path(sys.argv[2]))
