"""The thesis's reference generator (its Appendix A.1), kept as the speed baseline.

``generate_synthetic_data`` is the thesis's code as printed (one Python iteration per synthetic
sample: ``np.random.choice(n, l, replace=False)``, a dense weight vector ``C_t`` of length n,
``X.T @ C_t``, fresh Gaussian noise). The thesis's DP-CDA variant (its §4: "we will mix only
the images having the same labels") runs that loop once per class on the class's rows;
:func:`thesis_dpcda` does exactly that, with ``floor(T/K)`` samples per class as in docs/specification.md §1,
and takes the argmax of the soft label as the hard label. It is a baseline for timing only:
it uses numpy's global random state and is not used by the library.
"""

from __future__ import annotations

import numpy as np


# Function for generating synthetic dataset  (thesis Appendix A.1, verbatim apart from layout)
def generate_synthetic_data(X, y_one_hot, T, l, sigma_x, sigma_y):
    n, d_X = X.shape  # n: number of original data points, d_X: dimensionality of feature space
    d_y = y_one_hot.shape[1]  # Dimensionality of the one-hot encoded labels

    X_synthetic = np.zeros((T, d_X))  # Initialize the synthetic feature matrix
    y_synthetic = np.zeros((T, d_y))  # Initialize the synthetic label matrix

    for t in range(T):
        # Step 1: Select l data points randomly without replacement
        indices = np.random.choice(n, l, replace=False)

        # Step 2: Create the weight vector for the mixture
        C_t = np.zeros(n)  # Initialize the weight vector with zeros
        C_t[indices] = 1 / l  # Set the weights of the selected data points to 1 / l

        # Step 3: Add Gaussian noise for differential privacy
        Q_t = np.random.normal(0, sigma_x, d_X)  # Gaussian noise for features
        R_t = np.random.normal(0, sigma_y, d_y)  # Gaussian noise for labels

        # Step 4: Generate the synthetic data point
        X_synthetic[t] = X.T @ C_t + Q_t  # Weighted sum of selected features plus noise
        y_synthetic[t] = y_one_hot.T @ C_t + R_t  # Weighted sum of selected one-hot labels
        #                                           plus noise

    return X_synthetic, y_synthetic


def thesis_dpcda(Xp: np.ndarray, y: np.ndarray, K: int, T: int, l: int, sigma_x: float,
                 sigma_y: float):
    """DP-CDA's class-wise work done the thesis's way: the loop above once per class.

    ``Xp`` are the preprocessed features (normalized and clipped), ``y`` labels in 0..K-1.
    Returns ``(X, y_soft, y_hard)`` with ``floor(T/K)`` samples per class.
    """
    eye = np.eye(K)
    per_class = T // K
    xs, ys = [], []
    for k in range(K):
        Xk = Xp[y == k].astype(np.float64)
        Xs, Ys = generate_synthetic_data(Xk, eye[np.full(len(Xk), k)], per_class, l, sigma_x,
                                         sigma_y)
        xs.append(Xs)
        ys.append(Ys)
    y_soft = np.concatenate(ys)
    return np.concatenate(xs), y_soft, y_soft.argmax(axis=1)
