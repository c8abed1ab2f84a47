"""The randomizers: each mechanism's channel, sampler integers, privacy map and codec, and the registry
that builds them."""
