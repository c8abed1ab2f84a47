# Raking and the raked mean's standard error by R's survey package, the independent check of ldp.weighting.raking.
# Usage: Rscript rake_survey.R data.csv margins.csv out.csv weights.csv
# data.csv: column y (numeric) and the raking columns; margins.csv: column, value, share.
# out.csv: the raked mean of y with its standard error two ways: svymean on rake()'s design (survey's
# own raking variance, iterated unweighted residuals), and svymean after calibrate(calfun = "raking") to
# the same margins from the raked weights (g = 1: the weights do not move; the variance uses the residuals
# of the regression on the margins weighted by the raked weights). weights.csv: rake()'s weights.
suppressPackageStartupMessages(library(survey))
args <- commandArgs(trailingOnly = TRUE)
data <- read.csv(args[1], colClasses = "character")
data$y <- as.numeric(data$y)
margins <- read.csv(args[2], colClasses = c("character", "character", "numeric"))
n <- nrow(data)
columns <- unique(margins$column)
for (column in columns) data[[column]] <- factor(data[[column]], levels = margins$value[margins$column == column])
data$one <- 1
design <- svydesign(ids = ~1, weights = ~one, data = data)
formulas <- lapply(columns, function(column) as.formula(paste0("~", column)))
totals <- lapply(columns, function(column) {
  rows <- margins[margins$column == column, ]
  frame <- data.frame(factor(rows$value, levels = rows$value), Freq = rows$share * n)
  names(frame)[1] <- column
  frame
})
raked <- rake(design, formulas, totals, control = list(maxit = 1000, epsilon = 1e-13, verbose = FALSE))
by_rake <- svymean(~y, raked)
data$w <- weights(raked)
again <- svydesign(ids = ~1, weights = ~w, data = data)
model <- as.formula(paste("~", paste(columns, collapse = " + ")))
population <- colSums(model.matrix(model, data) * data$w)
calibrated <- calibrate(again, model, population = population, calfun = "raking")
by_calibrate <- svymean(~y, calibrated)
write.csv(data.frame(method = c("rake", "calibrate"), mean = c(coef(by_rake), coef(by_calibrate)),
                     se = c(SE(by_rake), SE(by_calibrate))), args[3], row.names = FALSE)
write.csv(data.frame(w = data$w), args[4], row.names = FALSE)
