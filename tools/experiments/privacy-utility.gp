# The frontier plot of docs/results/privacy-utility.md from the .dat files that
# `tools/experiments/run.py privacy-utility --plot-data` writes, one PNG per dataset directory
# (a method without a .dat file there is skipped with a warning):
#   gnuplot -e "dir='docs/results/privacy-utility'" tools/experiments/privacy-utility.gp
#   gnuplot -e "dir='docs/results/privacy-utility/subsample-600'; data='ML-100K, 600-user subsample'" \
#     tools/experiments/privacy-utility.gp
if (!exists("dir")) dir = 'docs/results/privacy-utility'
if (!exists("data")) data = 'ML-100K'
set terminal pngcairo size 900,440 font ",11" noenhanced
set grid
set key outside right
set logscale x
set xrange [0.4:25]
set xtics (0.5, 1, 2, 5, 10, 20)
set xlabel "epsilon (whole run, delta = 1e-5, one user)"
set ylabel "F1@10 (20% holdout per user)"
set output dir.'/f1-vs-epsilon.png'
set title data." frontier (mean over the seeds measured: docs/results/privacy-utility.md)"
plot dir.'/frontier-dpmf-rp-pbm.dat' using 1:2 with linespoints title "DPMF-RP pbm", \
     dir.'/frontier-dpmf-rp-gaussian.dat' using 1:2 with linespoints title "DPMF-RP gaussian", \
     dir.'/frontier-dpmf-rp-ddg.dat' using 1:2 with linespoints title "DPMF-RP ddg", \
     dir.'/frontier-dp-popularity.dat' using 1:2 with linespoints title "DP popularity", \
     dir.'/frontier-dp-als.dat' using 1:2 with linespoints title "DP-ALS", \
     dir.'/popularity.dat' using 1:2 with lines dashtype 2 title "popularity (non-private)"
