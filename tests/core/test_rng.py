"""BatchRNG serves each replicate exactly its own stream, however the draws are cut into calls."""
import numpy as np
import pytest

from onlinelab.core.rng import BatchRNG, seed_sequences


def _reference(seqs, method, n):
    """Each replicate's first n draws from a fresh Generator on its own seed sequence, in one call."""
    return np.stack([getattr(np.random.Generator(np.random.PCG64(s)), method)(n) for s in seqs])


@pytest.mark.parametrize("method", ["random", "normal"])
@pytest.mark.parametrize("block", [1, 7, 512])
def test_draws_in_any_chunks_equal_one_call_per_stream(method, block):
    seqs = seed_sequences(3, "learner", "exp3", 4, env="bernoulli-arms")
    rng = BatchRNG(seqs, block=block)
    sizes = [(), 5, (2, 3), 1000, (), 13, (40, 10), 1]
    parts = []
    for shape in sizes:
        x = getattr(rng, method)(shape)
        assert x.shape == (4,) + ((shape,) if isinstance(shape, int) else shape)
        parts.append(x.reshape(4, -1))
    got = np.concatenate(parts, axis=1)
    ref = _reference(seqs, "random" if method == "random" else "standard_normal", got.shape[1])
    assert np.array_equal(got, ref)


def test_a_replicate_stream_does_not_depend_on_the_number_of_replicates():
    one = BatchRNG(seed_sequences(0, "environment", "bernoulli-arms", 1), block=64)
    five = BatchRNG(seed_sequences(0, "environment", "bernoulli-arms", 5), block=64)
    for shape in (3, (100, 10), ()):
        assert np.array_equal(one.random(shape)[0], five.random(shape)[0])


def test_uniforms_and_normals_are_buffered_apart_from_the_same_stream():
    """Uniform and normal draws share a replicate's generator; each buffer refills from it in call order."""
    seqs = seed_sequences(1, "data", "spiked", 2)
    rng = BatchRNG(seqs, block=8)
    u = rng.random(3)            # the generator's first 8 doubles fill the uniform buffer
    z = rng.normal(2)            # the next 8 standard normals fill the normal buffer
    gens = [np.random.Generator(np.random.PCG64(s)) for s in seqs]
    ref_u = np.stack([g.random(8) for g in gens])
    ref_z = np.stack([g.standard_normal(8) for g in gens])
    assert np.array_equal(u, ref_u[:, :3]) and np.array_equal(z, ref_z[:, :2])
