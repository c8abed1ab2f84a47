"""The codebook's words on how each kind of report beyond one-of-k and unary encodings is read (its
"debiasing" entries, beside the general formula in `surveys.aggregation.exports`)."""

OTHER_KINDS = {  # the kinds beyond one-of-k and unary encodings
    "multiselect": "multi-select: bit j is the option-j box, kept with p = keep / modulus and flipped otherwise; "
                   "c_j = reports with bit j set, pi_hat_j = (c_j / n - q_other) / (p - q_other) as above, the "
                   "fraction who ticked option j (these need not add up to 1)",
    "onebit": "1-bit mean: c_1 = reports of 1 of n; mean_hat = lo + (hi - lo) (c_1 / n - q_other) / (p - q_other), "
              "standard error (hi - lo) sqrt(lambda (1 - lambda) / n) / (p - q_other) with lambda = c_1 / n; the "
              "interval is the Wilson interval of lambda mapped the same way, clipped to [lo, hi]",
    "dlaplace": "discrete Laplace: a report r (stored as r + bound) is the grid index plus noise Z with E[Z] = 0, "
                "Var(Z) = noise_variance; mean_hat = lo + step * mean(r), standard error step * sqrt(max(s^2, "
                "noise_variance) / n) with s^2 the sample variance of r; a normal interval, clipped to [lo, hi]",
    "direct_number": "a number sent as given (not randomized): the report i is the grid index of the answer, the "
                     "value lo + step * i; mean_hat = lo + step * mean(i), the exact mean of the answers, standard "
                     "error step * s / sqrt(n) with s^2 the sample variance of i, and a Student t interval with n - 1 "
                     "degrees of freedom; its \"bins\" (each with its lower edge) are those break-downs count it in",
    "histogram": "a numeric question with bins: k-ary randomized response over the bins; a true value x is "
                 "reported as its bin, the last bin whose lower edge is at most x; debiased as above",
    "ordinal": "an ordinal question: per level as above; the mean score sum_j v_j pi_hat_j over the levels with a "
               "score v_j, with variance v^T Cov(pi_hat) v (plugged in at the simplex projection of pi_hat, times "
               "n / (n - 1)) and a Student t interval with n - 1 degrees of freedom; with a level without a score "
               "(\"Prefer not to say\") the mean among the scored levels, R = sum_S v_j pi_hat_j / sum_S pi_hat_j, "
               "its standard error by the delta method (that of sum_S (v_j - R) pi_hat_j, divided by sum_S pi_hat_j)",
}
