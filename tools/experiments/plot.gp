# Plots of docs/results/dpmf-rp.md from the .dat files `tools/experiments/run.py dpmf-rp
# --plot-data` writes (gnuplot-nox):
#   gnuplot -e "dir='docs/results/dpmf-rp'" tools/experiments/plot.gp
if (!exists("dir")) dir = 'docs/results/dpmf-rp'
set terminal pngcairo size 720,440 font ",11" noenhanced
set grid
set key outside right

set output dir.'/accuracy-vs-compression.png'
set title "DPMF-RP on ML-100K vs m/p (fedmf settings, whole-run RDP epsilon 100)"
set xlabel "m/p"
set ylabel "metric at N = 10"
set logscale x
set xtics (1, 2, 3, 5, 10)
plot dir.'/compression.dat' using 1:5 with linespoints title "F1", \
     '' using 1:4 with linespoints title "recall", \
     '' using 1:3 with linespoints title "precision", \
     '' using 1:6 with linespoints title "mAP (AP@N)"

set output dir.'/accuracy-vs-epsilon.png'
set title "DPMF-RP on ML-100K vs the whole run's RDP epsilon (alpha = 2)"
set xlabel "epsilon (RDP, alpha = 2, whole run)"
set xtics auto
plot dir.'/epsilon.dat' using 1:5 with linespoints title "F1", \
     '' using 1:4 with linespoints title "recall", \
     '' using 1:3 with linespoints title "precision", \
     '' using 1:6 with linespoints title "mAP (AP@N)"

set output dir.'/payload-vs-compression.png'
set key inside top right
set title "Upload per user and round, cohort 94 (tools/measure-communication.sh)"
set xlabel "m/p (1: no projection)"
set ylabel "bytes"
set xtics (1, 2, 3, 5, 10)
plot dir.'/payload.dat' using 1:2 with linespoints title "rotated_l2: masked input (payload)", \
     '' using 1:3 with linespoints title "rotated_l2: all SecAgg stages", \
     '' using 1:4 with linespoints dashtype 2 title "column_l1: masked input", \
     '' using 1:5 with linespoints dashtype 2 title "column_l1: all SecAgg stages"
