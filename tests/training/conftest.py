"""Training tests run torch on one thread: the models are tiny, and on a shared or small CPU
intra-op threads only add contention (measured here: 4x slower with 2 threads under load).
The library itself never changes the thread count; only this test package does, and it
restores the previous value afterwards."""

import pytest


@pytest.fixture(autouse=True, scope="package")
def _one_torch_thread():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
