"""Two revisions of the pump manual with six known edits, for the comparison tests.

The edits: the impeller nut torque changed (5.6), a section added (5.7), one deleted (4.5.1),
one moved to another chapter (6.4 into 5 Maintenance), a heading renamed (5.2) and two steps of
a procedure reordered (4.3).
"""

from __future__ import annotations

import re

from tests.helpers import ROOT

V1 = (ROOT / "fixtures" / "pump-x200.md").read_text(encoding="utf-8")
TITLE = "PX-200 Centrifugal Pump — Service Manual"

ADDED = """### 5.7 Coupling inspection

Inspect the coupling guard and the coupling element PX-2110-C every 500 operating hours with
the pump locked out. Turn the shaft by hand and look for cracks in the elastomer and for rubber
dust inside the guard. Record the gap between the hub faces; it must stay within 3 mm ± 0.5 mm.

"""

EXPECTED = {
    ("changed", ("5 Maintenance", "5.6 Reassembly and tightening torques")),
    ("added", ("5 Maintenance", "5.7 Coupling inspection")),
    ("removed", ("4 Commissioning and operation", "4.5 Shutdown", "4.5.1 Long-term shutdown")),
    ("moved", ("5 Maintenance", "6.4 Vibration analysis")),
    ("renamed", ("5 Maintenance", "5.2 Bearing greasing")),
    ("changed", ("4 Commissioning and operation", "4.3 Start-up procedure")),
}


def _block(text: str, heading: str, until: str) -> str:
    start = text.index(heading)
    return text[start : text.index(until, start + len(heading))]


def second_revision() -> str:
    """The first revision with the six edits applied."""
    text = V1.replace(
        "| Impeller nut, with thread locker | M24 | 95 N·m |",
        "| Impeller nut, with thread locker | M24 | 110 N·m |",
    )
    text = text.replace(_block(text, "#### 4.5.1 Long-term shutdown", "## 5 Maintenance"), "")
    vibration = _block(text, "### 6.4 Vibration analysis", "## 7 Technical")
    text = text.replace(vibration, "")
    text = text.replace("## 6 Troubleshooting", ADDED + vibration + "## 6 Troubleshooting", 1)
    text = text.replace("### 5.2 Bearing lubrication", "### 5.2 Bearing greasing")
    step5 = re.search(r"^5\. Open the discharge valve slowly.*$", text, flags=re.M)
    step6 = re.search(r"^6\. Check the motor current.*$", text, flags=re.M)
    assert step5 and step6
    a, b = step5.group(0), step6.group(0)
    text = text.replace(a + "\n" + b, "5." + b[2:] + "\n6." + a[2:])
    assert text.count("110 N·m") == 1 and "4.5.1" not in text
    return text
