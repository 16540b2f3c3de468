"""Built-in learners; importing this package registers them by name (see ``onlinelab list``).

Each module holds one family.  Add a module here and import it below to make it built in.
"""
from onlinelab.learners import leader, mirror_descent  # noqa: E402,F401  (OCO learners register themselves)
from onlinelab.learners.logdet import LogDetOMD, LogDetState
from onlinelab.learners.meg import MEG, MEGState

__all__ = ["LogDetOMD", "LogDetState", "MEG", "MEGState"]
from onlinelab.learners import (
    bandit_simplex,  # noqa: E402,F401  (exp3, exp3-auer, logbarrier-bandit)
    capped_meg,  # noqa: E402,F401  (rank-k capped MEG, theory §2)
    changing_bandits,  # noqa: E402,F401  (sw-ucb, d-ucb, theory §10)
    delay_copies,  # noqa: E402,F401  (Joulani et al.'s reduction for delayed feedback)
    exp3_ix,  # noqa: E402,F401  (exp3-ix, theory §10)
    greedy,  # noqa: E402,F401  (epsilon-greedy, theory §10)
    index_bandits,  # noqa: E402,F401  (ucb1, moss, kl-ucb, theory §10)
    streaming_autoencoder,  # noqa: E402,F401  (linear, tanh, denoising AE)
    streaming_batch,  # noqa: E402,F401  (batch PCA, IncrementalPCA comparators)
    streaming_gradient_pca,  # noqa: E402,F401  (gradient PCA)
    streaming_oja,  # noqa: E402,F401  (Oja, Krasulina)
    streaming_sgd,  # noqa: E402,F401  (SGD with averaging)
    thompson,  # noqa: E402,F401  (Thompson sampling, theory §10)
)
