"""Working from an exported file: its codebook, its analysis, and the audit of a randomizer."""
