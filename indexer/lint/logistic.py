"""The logistic model the lint's confidences come from: weights by feature name, an intercept."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Logistic:
    """Weights by feature name and an intercept, as a fit stores them in a JSON file."""

    weights: dict[str, float]
    intercept: float

    @staticmethod
    def stored(path: Path) -> dict[str, Any]:
        """The JSON a fit wrote at ``path``."""
        data: dict[str, Any] = json.loads(path.read_text())
        return data

    def score(self, features: dict[str, float]) -> float:
        """The probability the model gives ``features`` (rounded to three places)."""
        z = self.intercept + sum(self.weights.get(k, 0.0) * v for k, v in features.items())
        return round(1.0 / (1.0 + math.exp(-z)), 3)
