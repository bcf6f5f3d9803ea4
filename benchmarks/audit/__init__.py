"""The audit queue measured on the team's fault sets."""
