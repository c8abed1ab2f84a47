# Each wave raked to its own margins by R's survey package, its debiased fractions with their standard errors,
# and the change between two waves of different respondents: the independent check of the waves' weighted figures
# (surveys.aggregation.waves.series with weighted=true).
# Usage: Rscript weighted_waves.R data.csv margins.csv channels.csv out.csv
# data.csv: wave, the raking columns, and y_<question>_<option>: 1 when that response's report is (or has the bit
# of) that option. margins.csv: wave, column, value, share. channels.csv: question, wave, p, q (the channel the
# reports are debiased through). out.csv: row (wave or change), wave, question, option, estimate, se.
# Each wave: rake() to its margins, then calibrate(calfun = "raking") from the raked weights to the same margins
# (g = 1: the weights do not move; the variance uses the residuals of the regression on the margins weighted by
# the raked weights), svymean of every indicator. The change: second minus first, variances added (two samples of
# different respondents).
suppressPackageStartupMessages(library(survey))
args <- commandArgs(trailingOnly = TRUE)
data <- read.csv(args[1], colClasses = "character")
margins <- read.csv(args[2], colClasses = c("integer", "character", "character", "numeric"))
channels <- read.csv(args[3], colClasses = c("character", "integer", "numeric", "numeric"))
indicators <- grep("^y_", names(data), value = TRUE)
for (column in indicators) data[[column]] <- as.numeric(data[[column]])
data$wave <- as.integer(data$wave)
rows <- list()
found <- list()
for (w in sort(unique(data$wave))) {
  part <- data[data$wave == w, ]
  mine <- margins[margins$wave == w, ]
  columns <- unique(mine$column)
  n <- nrow(part)
  for (column in columns) part[[column]] <- factor(part[[column]], levels = mine$value[mine$column == column])
  part$one <- 1
  design <- svydesign(ids = ~1, weights = ~one, data = part)
  totals <- lapply(columns, function(column) {
    those <- mine[mine$column == column, ]
    frame <- data.frame(factor(those$value, levels = those$value), Freq = those$share * n)
    names(frame)[1] <- column
    frame
  })
  formulas <- lapply(columns, function(column) as.formula(paste0("~", column)))
  raked <- rake(design, formulas, totals, control = list(maxit = 1000, epsilon = 1e-13, verbose = FALSE))
  part$w <- weights(raked)
  again <- svydesign(ids = ~1, weights = ~w, data = part)
  model <- as.formula(paste("~", paste(columns, collapse = " + ")))
  population <- colSums(model.matrix(model, part) * part$w)
  calibrated <- calibrate(again, model, population = population, calfun = "raking")
  means <- svymean(as.formula(paste("~", paste(indicators, collapse = " + "))), calibrated)
  for (column in indicators) {
    parts <- strsplit(column, "_")[[1]]
    channel <- channels[channels$question == parts[2] & channels$wave == w, ]
    gap <- channel$p - channel$q
    estimate <- (coef(means)[[column]] - channel$q) / gap
    se <- SE(means)[[column]] / gap
    found[[paste(w, column)]] <- c(estimate, se)
    rows[[length(rows) + 1]] <- data.frame(row = "wave", wave = w, question = parts[2], option = parts[3],
                                           estimate = estimate, se = se)
  }
}
waves <- sort(unique(data$wave))
for (column in indicators) {
  parts <- strsplit(column, "_")[[1]]
  one <- found[[paste(waves[1], column)]]
  two <- found[[paste(waves[2], column)]]
  rows[[length(rows) + 1]] <- data.frame(row = "change", wave = NA, question = parts[2], option = parts[3],
                                         estimate = two[1] - one[1], se = sqrt(one[2]^2 + two[2]^2))
}
write.csv(do.call(rbind, rows), args[4], row.names = FALSE)
