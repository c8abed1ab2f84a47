# A weighted cross-tab by R's survey package, the independent check of ldp.weighting.joint.
# Usage: Rscript weighted_crosstab.R data.csv margins.csv channels.csv out.csv
# data.csv: ra, rb (the reports of A and B, option indexes), w (raked weights) and the raking columns;
# margins.csv: column, value, share; channels.csv: question (a or b), k, p, q (the channel).
# Each option's unbiased score is s = (1[report = option] - q) / (p - q), computed here from the reports. The
# design is calibrate(calfun = "raking") to the margins from the raked weights (g = 1: the weights do not move;
# the variance uses the residuals of the regression on the margins weighted by the raked weights).
# out.csv: kind (joint, b_given_a, a_given_b), row, column, estimate, se: svymean of s_a s_b, svyratio of
# s_a s_b over s_a (rows a) and over s_b (rows b).
suppressPackageStartupMessages(library(survey))
args <- commandArgs(trailingOnly = TRUE)
data <- read.csv(args[1], colClasses = "character")
data$w <- as.numeric(data$w)
margins <- read.csv(args[2], colClasses = c("character", "character", "numeric"))
channels <- read.csv(args[3], colClasses = c("character", "integer", "numeric", "numeric"))
columns <- unique(margins$column)
for (column in columns) data[[column]] <- factor(data[[column]], levels = margins$value[margins$column == column])
scores <- function(question) {
  ch <- channels[channels$question == question, ]
  report <- as.integer(data[[paste0("r", question)]])
  sapply(seq_len(ch$k) - 1, function(j) ((report == j) - ch$q) / (ch$p - ch$q))
}
sa <- scores("a")
sb <- scores("b")
for (i in seq_len(ncol(sa))) data[[paste0("sa", i)]] <- sa[, i]
for (j in seq_len(ncol(sb))) data[[paste0("sb", j)]] <- sb[, j]
for (i in seq_len(ncol(sa))) for (j in seq_len(ncol(sb))) data[[paste0("p", i, "_", j)]] <- sa[, i] * sb[, j]
design <- svydesign(ids = ~1, weights = ~w, data = data)
model <- as.formula(paste("~", paste(columns, collapse = " + ")))
population <- colSums(model.matrix(model, data) * data$w)
calibrated <- calibrate(design, model, population = population, calfun = "raking")
rows <- list()
for (i in seq_len(ncol(sa))) for (j in seq_len(ncol(sb))) {
  product <- as.formula(paste0("~p", i, "_", j))
  joint <- svymean(product, calibrated)
  given_a <- svyratio(product, as.formula(paste0("~sa", i)), calibrated)
  given_b <- svyratio(product, as.formula(paste0("~sb", j)), calibrated)
  rows[[length(rows) + 1]] <- data.frame(kind = c("joint", "b_given_a", "a_given_b"), row = c(i, i, j) - 1,
    column = c(j, j, i) - 1, estimate = c(coef(joint), coef(given_a), coef(given_b)),
    se = c(SE(joint), SE(given_a), SE(given_b)))
}
write.csv(do.call(rbind, rows), args[4], row.names = FALSE)
