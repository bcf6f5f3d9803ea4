"""The words that constrain a statement, grouped by what they mean.

A group is a set of phrases that can stand for one another in a paraphrase: a summary that says
"up to 1GB" for "at most 1GB" keeps the limit; one that says "1GB" drops it.
"""

from __future__ import annotations

# Subordinators that open a conditional or temporal clause.
CONDITIONAL = (
    "if and only if", "only if", "only when", "except when", "except if", "even if",
    "even when", "as long as", "so long as", "provided that", "provided", "in case",
    "in which case", "unless", "whenever", "if", "when", "while", "once", "until",
)  # fmt: skip
EXCEPTION = ("except for", "except", "other than", "apart from", "excluding", "not counting")
RESTRICTIVE_DETERMINERS = frozenset(
    [
        "each",
        "every",
        "particular",
        "specific",
        "certain",
        "individual",
        "given",
        "single",
        "some",
        "most",
        "many",
    ]
)
SCOPE_PREPOSITIONS = (
    "on", "in", "for", "during", "outside", "inside", "within", "per", "under", "with",
    "without", "across",
)  # fmt: skip

# Qualifier groups: one member in the summary keeps the qualifier of another.
QUALIFIERS: tuple[tuple[str, ...], ...] = (
    ("only", "just", "solely", "exclusively", "alone", "limited to", "restricted to"),
    ("at most", "up to", "no more than", "maximum", "a maximum of", "max", "caps", "capped",
     "limit", "limits", "bounded", "cannot exceed", "not exceed", "or less", "or fewer",
     "upper limit", "ceiling"),
    ("at least", "no less than", "minimum", "a minimum of", "or more", "lower limit"),
    ("more than", "above", "over", "exceeds", "exceed", "greater than", "higher than",
     "beyond", "longer than", "larger than"),
    ("less than", "below", "under", "fewer than", "lower than", "shorter than",
     "smaller than", "closer together than"),
    ("the lesser of", "the smaller of", "whichever is smaller", "whichever is less"),
    ("the greater of", "the larger of", "whichever is larger", "whichever is greater"),
    ("usually", "typically", "normally", "generally", "often", "commonly", "common",
     "in most cases", "mostly", "mainly", "primarily", "largely", "frequently", "tends to",
     "as a rule"),
    ("sometimes", "occasionally", "in some cases", "at times"),
    ("some", "certain", "several", "particular", "specific"),
    ("most", "the majority of", "much of"),
    ("many", "numerous", "a lot of", "lots of"),
    ("by default", "default", "defaults", "out of the box"),
)  # fmt: skip

NEGATIONS = (
    "not", "n't", "no", "never", "none", "nothing", "nobody", "neither", "nor", "without",
    "cannot", "no longer", "unable", "fails to", "lacks", "lack", "in the absence of",
)  # fmt: skip

# Absolute groups: a summary's absolute needs one of its group in the source it restates.
ABSOLUTES: tuple[tuple[str, ...], ...] = (
    ("always", "at all times", "invariably", "in every case", "in all cases",
     "under all circumstances", "without exception", "whenever", "every time", "constantly"),
    ("all", "every", "each", "any", "whole", "entire", "everything", "everyone", "both"),
    ("never", "none", "nothing", "no", "not any", "neither", "nobody", "not", "cannot"),
    ("completely", "entirely", "fully", "totally", "wholly", "altogether", "full", "complete"),
    ("guaranteed", "guarantee", "guarantees", "certainly", "definitely", "ensures", "ensure",
     "must"),
    ("immediately", "instantly", "right away", "at once", "as quickly as possible",
     "as soon as possible"),
)  # fmt: skip
# The absolutes a summary is checked for (the rest of a group only supports them).
CHECKED_ABSOLUTES = (
    "always", "at all times", "invariably", "in every case", "in all cases",
    "under all circumstances", "without exception", "all", "every", "any", "everything",
    "never", "completely", "entirely", "fully", "totally", "wholly", "guaranteed",
    "guarantee", "guarantees", "certainly", "definitely", "instantly", "immediately",
    "complete", "whole", "entire", "each and every",
)  # fmt: skip

# Any of these keeps a hedge ("often" said as "can"): each means "not always".
HEDGES = (
    "usually", "typically", "normally", "generally", "often", "commonly", "common", "mostly",
    "mainly", "primarily", "largely", "frequently", "sometimes", "occasionally", "some",
    "certain", "several", "many", "most", "can", "may", "might", "could", "possibly",
    "perhaps", "tends to", "in most cases", "in some cases",
)  # fmt: skip
# Words that negate without a negation word: a summary may say "refuses" for "does not accept".
IMPLICIT_NEGATIONS = (
    "refuse", "refuses", "refused", "skip", "skips", "skipped", "lack", "lacks", "lacking",
    "fail", "fails", "omit", "omits", "omitted",
    "exclude", "excludes", "excluded", "outside", "ignore", "ignores", "ignored", "pointless",
    "useless", "unable", "hidden", "invisible", "absent", "missing", "out of", "harmless",
    "unnecessary", "neglect", "neglects", "off", "disabled", "disables",
)  # fmt: skip
# Idioms with a negation word that do not negate the statement, and what they mean.
NEGATION_IDIOMS = {
    "no more than": "at most", "no less than": "at least", "no later than": "by",
    "not only": "also", "no matter": "whatever", "without exception": "always",
    "non-zero": "nonzero", "not counting": "besides", "nothing but": "only",
}  # fmt: skip
# Fronted phrases that organise the text rather than scope a statement.
DISCOURSE = (
    "for example", "for instance", "in fact", "in addition", "in particular", "in practice",
    "in general", "in short", "in other words", "on the other hand", "in this case",
    "for more information", "for more details", "for details", "in that case", "with this",
)  # fmt: skip
