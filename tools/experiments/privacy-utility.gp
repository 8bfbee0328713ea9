# The frontier plot of docs/results/privacy-utility.md from privacy-utility.py's .dat files:
#   gnuplot -e "dir='docs/results/privacy-utility'" tools/experiments/privacy-utility.gp
if (!exists("dir")) dir = 'docs/results/privacy-utility'
set terminal pngcairo size 900,440 font ",11" noenhanced
set grid
set key outside right
set logscale x
set xtics (1, 2, 5, 10, 20)
set xlabel "epsilon (whole run, delta = 1e-5, one user)"
set ylabel "F1@10 (ML-100K, 20% holdout per user)"
set output dir.'/f1-vs-epsilon.png'
set title "ML-100K frontier (DPMF-RP: seed 1, seeds 1-4 at epsilon 5; popularity: seeds 1-4)"
plot dir.'/frontier-dpmf-rp-pbm.dat' using 1:2 with linespoints title "DPMF-RP pbm", \
     dir.'/frontier-dpmf-rp-gaussian.dat' using 1:2 with linespoints title "DPMF-RP gaussian", \
     dir.'/frontier-dpmf-rp-ddg.dat' using 1:2 with linespoints title "DPMF-RP ddg", \
     dir.'/frontier-dp-popularity.dat' using 1:2 with linespoints title "DP popularity", \
     dir.'/frontier-dp-als.dat' using 1:2 with linespoints title "DP-ALS (seeds 1-4)", \
     dir.'/popularity.dat' using 1:2 with lines dashtype 2 title "popularity (non-private)"
