"""Small pieces every layer may use: input checks, registries, cancellation, plain-words problems."""
