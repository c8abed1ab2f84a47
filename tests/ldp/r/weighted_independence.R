# Rao and Scott's test of independence by R's survey package, the independent check of ldp.weighting.association.
# Usage: Rscript weighted_independence.R data.csv margins.csv out.csv
# data.csv: ra, one or more columns rb... (the tables' sides, as labels), w (raked weights) and the raking columns;
# margins.csv: column, value, share. The design is calibrate(calfun = "raking") to the margins from the raked
# weights (g = 1: the weights do not move; the variance uses the residuals of the regression on the margins).
# out.csv: column, statistic, ndf, ddf, p of svychisq(~ ra + <column>, statistic = "F"), per rb... column.
suppressPackageStartupMessages(library(survey))
args <- commandArgs(trailingOnly = TRUE)
data <- read.csv(args[1], colClasses = "character")
data$w <- as.numeric(data$w)
margins <- read.csv(args[2], colClasses = c("character", "character", "numeric"))
columns <- unique(margins$column)
for (column in columns) data[[column]] <- factor(data[[column]], levels = margins$value[margins$column == column])
sides <- grep("^rb", names(data), value = TRUE)
for (column in c("ra", sides)) data[[column]] <- factor(data[[column]])
design <- svydesign(ids = ~1, weights = ~w, data = data)
model <- as.formula(paste("~", paste(columns, collapse = " + ")))
population <- colSums(model.matrix(model, data) * data$w)
calibrated <- calibrate(design, model, population = population, calfun = "raking")
rows <- lapply(sides, function(side) {
  test <- svychisq(as.formula(paste("~ ra +", side)), calibrated, statistic = "F")
  data.frame(column = side, statistic = unname(test$statistic), ndf = unname(test$parameter[1]),
             ddf = unname(test$parameter[2]), p = unname(test$p.value))
})
write.csv(do.call(rbind, rows), args[3], row.names = FALSE)
