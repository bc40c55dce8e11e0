# pip install ./python (offline: --no-index --no-build-isolation). Put libedgeq.so next to the
# package (edgeq/libedgeq.so) or point $EDGEQ_LIBRARY at it.
from setuptools import setup

setup(
    name="edgeq",
    version="0.1.0",
    description="edgeq: quantized inference for edge devices (ctypes over the C API)",
    packages=["edgeq"],
    package_data={"edgeq": ["libedgeq.so"]},
    install_requires=["numpy"],
    python_requires=">=3.9",
)
