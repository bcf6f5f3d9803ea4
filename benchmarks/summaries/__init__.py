"""The summary benchmark: Overstory's offline summarizer beside peer summarizers."""
