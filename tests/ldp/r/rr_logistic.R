# An independent fit of the logistic model through a known randomized-response channel, in base R:
#   P(y = 1 | x) = q + (p - q) plogis(x'b),
# maximized with optim (BFGS, analytic gradient, restarted until it stops moving), then the observed
# information (analytic, and optimHess's finite differences of the gradient) and the outer product of
# the per-row scores, and each term's two-sided Wald p-value with either. Usage: Rscript rr_logistic.R data.csv p q out.csv
# data.csv: column y (0/1) and the covariates (every other column); out.csv: one row per term.
# With a fifth argument, an R formula, the covariates are model.matrix(formula, data) instead (its left side y).
args <- commandArgs(trailingOnly = TRUE)
data <- read.csv(args[1])
p <- as.numeric(args[2]); q <- as.numeric(args[3])
if (length(args) >= 5) {
  X <- model.matrix(as.formula(args[5]), data)
} else {
  X <- cbind("(Intercept)" = 1, as.matrix(data[, setdiff(names(data), "y"), drop = FALSE]))
}
y <- data$y

prob <- function(b) q + (p - q) * plogis(drop(X %*% b))
loglik <- function(b) { P <- prob(b); sum(y * log(P) + (1 - y) * log(1 - P)) }
scores <- function(b) {
  s <- plogis(drop(X %*% b)); P <- q + (p - q) * s
  X * ((y - P) / (P * (1 - P)) * (p - q) * s * (1 - s))
}
gradient <- function(b) colSums(scores(b))

b <- rep(0, ncol(X))
for (round in 1:20) {
  fit <- optim(b, function(b) -loglik(b), function(b) -gradient(b), method = "BFGS",
               control = list(reltol = 1e-16, maxit = 10000))
  moved <- max(abs(fit$par - b)); b <- fit$par
  if (moved < 1e-12) break
}
s <- plogis(drop(X %*% b)); P <- q + (p - q) * s
dP <- (p - q) * s * (1 - s); d2P <- dP * (1 - 2 * s)
weight <- (y / P^2 + (1 - y) / (1 - P)^2) * dP^2 - (y - P) / (P * (1 - P)) * d2P
observed <- crossprod(X * weight, X)
numeric <- -optimHess(b, loglik, gradient, control = list(ndeps = rep(1e-5, length(b))))
g <- scores(b)
opg <- crossprod(g)
se_observed <- sqrt(diag(solve(observed))); se_opg <- sqrt(diag(solve(opg)))
out <- data.frame(term = colnames(X), estimate = b,
                  se_observed = se_observed,
                  se_numeric = sqrt(diag(solve(numeric))),
                  se_opg = se_opg,
                  p_observed = 2 * pnorm(-abs(b / se_observed)), p_opg = 2 * pnorm(-abs(b / se_opg)),
                  loglik = loglik(b), gradient = gradient(b))
write.csv(out, args[4], row.names = FALSE)
