# Reference paths and selections of R's huge 1.3.5 (and flare 1.8 for CLIME)
# for tests/learners/test_huge_agreement.py. Run from the repository root:
#   Rscript tests/learners/data/huge_reference.R
# It writes tests/learners/data/huge_<name>.csv (the data sets, columns
# standardised to mean 0 and variance 1 with denominator n) and
# tests/learners/data/huge_reference.json (everything R computed on them).
suppressMessages({library(huge); library(flare); library(jsonlite)})
stopifnot(packageVersion("huge") == "1.3.5")
# huge calls gc() several times per fit (seconds on a busy machine, for the
# hundreds of fits of StARS); memory management only, so it is switched off.
without_gc = new.env(parent = asNamespace("huge"))
without_gc$gc = function(...) invisible(NULL)
for (fn in c("huge", "huge.mb", "huge.ct", "huge.glasso", "huge.tiger", "huge.select")) {
  f = get(fn, envir = asNamespace("huge"))
  environment(f) = without_gc
  assignInNamespace(fn, f, "huge")
  attached = as.environment("package:huge")
  unlockBinding(fn, attached); assign(fn, f, envir = attached); lockBinding(fn, attached)
}
out_dir = "tests/learners/data"

edges = function(A) {  # upper-triangle edges, 0-based, row-major order
  A = as.matrix(A)
  w = which(A != 0 & upper.tri(A), arr.ind = TRUE)
  w = w[order(w[, 1], w[, 2]), , drop = FALSE] - 1
  list(i = as.integer(w[, 1]), j = as.integer(w[, 2]))
}
sparse_entries = function(M) {  # non-zero entries of a matrix, 0-based
  M = as.matrix(M); w = which(M != 0, arr.ind = TRUE)
  w = w[order(w[, 1], w[, 2]), , drop = FALSE]
  list(i = as.integer(w[, 1] - 1), j = as.integer(w[, 2] - 1), value = M[w])
}
# Node-wise coefficients to 8 digits: beta[j, m] is the coefficient of
# variable j in the regression of variable m.
coefficients = function(beta) {
  e = sparse_entries(beta); e$value = signif(e$value, 8); e
}

specs = list(
  hub = list(seed = 1, n = 100, d = 30, graph = "hub", g = 3),
  band = list(seed = 2, n = 100, d = 30, graph = "band", g = 2),
  random = list(seed = 3, n = 100, d = 30, graph = "random", g = NULL),
  random_wide = list(seed = 4, n = 40, d = 60, graph = "random", g = NULL)
)
reference = list()
for (name in names(specs)) {
  s = specs[[name]]
  set.seed(s$seed)
  L = huge.generator(n = s$n, d = s$d, graph = s$graph, g = s$g, verbose = FALSE)
  x = scale(L$data) * sqrt(s$n / (s$n - 1))
  write.csv(x, file.path(out_dir, paste0("huge_", name, ".csv")), row.names = FALSE)
  x = as.matrix(read.csv(file.path(out_dir, paste0("huge_", name, ".csv"))))
  n = nrow(x); d = ncol(x)

  mb_or = huge.mb(x, sym = "or", verbose = FALSE)  # default path: 10 values
  lambda = mb_or$lambda
  mb_and = huge.mb(x, lambda = lambda, sym = "and", verbose = FALSE)
  tiger_or = huge.tiger(x, lambda = lambda, sym = "or", verbose = FALSE)
  tiger_and = huge.tiger(x, lambda = lambda, sym = "and", verbose = FALSE)
  tiger_auto = huge.tiger(x, lambda = sqrt(log(d) / n), sym = "or", verbose = FALSE)
  ct = huge.ct(x, lambda = lambda, verbose = FALSE)
  glasso = huge.glasso(x, lambda = lambda, verbose = FALSE)

  r = list(n = n, d = d, graph = s$graph, lambda = lambda,
           true_edges = edges(L$theta),
           mb_or = lapply(mb_or$path, edges), mb_and = lapply(mb_and$path, edges),
           mb_beta = lapply(mb_or$beta, coefficients),
           tiger_or = lapply(tiger_or$path, edges),
           tiger_and = lapply(tiger_and$path, edges),
           tiger_auto = edges(tiger_auto$path[[1]]),
           tiger_auto_beta = coefficients(tiger_auto$beta[[1]]),
           ct = lapply(ct$path, edges), glasso = lapply(glasso$path, edges),
           glasso_loglik = glasso$loglik, glasso_df = glasso$df)

  # Selection on the same paths. RIC with rep.num = n uses every shift 1..n.
  est = huge(x, lambda = lambda, method = "mb", verbose = FALSE)
  ric = huge.select(est, criterion = "ric", rep.num = n, verbose = FALSE)
  r$ric_lambda = ric$opt.lambda
  r$ric_edges = edges(ric$refit)
  est_glasso = huge(x, lambda = lambda, method = "glasso", verbose = FALSE)
  ebic = huge.select(est_glasso, criterion = "ebic", verbose = FALSE)
  r$ebic_score = ebic$ebic.score
  r$ebic_index = ebic$opt.index - 1
  # StARS is random: ten seeds give its Monte Carlo spread.
  for (method in c("mb", "ct", "glasso")) {
    est = huge(x, lambda = lambda, method = method, verbose = FALSE)
    variability = matrix(0, 10, length(lambda)); index = integer(10)
    for (seed in 1:10) {
      set.seed(seed)
      sel = huge.select(est, criterion = "stars", verbose = FALSE)
      variability[seed, ] = sel$variability
      index[seed] = sel$opt.index - 1
    }
    r[[paste0("stars_", method)]] = list(variability = variability, index = index)
  }

  # flare's TIGER (ADMM to 1e-7) on the same path: a second reference.
  for (sym in c("or", "and")) {
    tiger = sugm(x, lambda = lambda, method = "tiger", sym = sym, prec = 1e-7,
                 verbose = FALSE)
    r[[paste0("flare_tiger_", sym)]] = lapply(tiger$path, edges)
  }
  # CLIME: flare's ADMM to 1e-7, perturbation 1/sqrt(n), at three bounds.
  clime_lambda = sqrt(log(d) / n) * c(0.75, 1, 1.5)
  clime = sugm(x, lambda = clime_lambda, method = "clime", standardize = TRUE,
               prec = 1e-7, verbose = FALSE)
  r$clime_lambda = clime_lambda
  r$clime_icov = lapply(clime$icov, sparse_entries)  # symmetrised
  r$clime_columns = lapply(clime$icov1, sparse_entries)  # the column solutions
  reference[[name]] = r
}
writeLines(toJSON(reference, digits = NA, auto_unbox = TRUE),
           file.path(out_dir, "huge_reference.json"))
