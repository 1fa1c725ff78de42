"""What a release is worth and what it leaks: fidelity, the paper's reference numbers, the audit."""
