"""NVIDIA-only layouts, by architecture as in Gluon (``linalias.layouts.nvidia.blackwell``)."""
