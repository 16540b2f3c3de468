"""Kernel tests run strict: a kernel that cannot compile raises instead of quietly taking the numpy path."""
import os

os.environ.setdefault("ONLINELAB_KERNELS_STRICT", "1")
