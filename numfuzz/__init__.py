"""numfuzz: differential fuzzing of PyTorch compilers against a float64 reference."""

__version__ = "0.1.0"
