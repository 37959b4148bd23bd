# sensitivity-ib.gp: written by roofplan from templates/sensitivity-ib.gp.in; edit and re-run `gnuplot sensitivity-ib.gp` in this directory.
# Sensitivity to InfiniBand bandwidth: the step time of the best fitting
# plan of each family at IB bandwidths from the data file, log-log; today's
# bandwidth marked, and the baseline's crossover where it turns
# compute-bound on this link (else the line under the subtitles says what
# binds). Filled dots are compute-bound at that bandwidth, open ones bound
# by a link or HBM; a long-dashed black curve is the baseline's fastest
# plan that does not fit, re-timed. Each family has its colour, marker
# and dash (no two differ by hue alone); past six families the lines are
# named at their right ends instead of in a key.
#
# Draws PNG (1600x900), SVG and, when gnuplot has pdfcairo, PDF.

# ---- values from the report ----
title_text = 'DeepSeek-V3 on 2048 × NVIDIA H800 SXM5 80GB: step time against InfiniBand bandwidth'
title_font = ',22'
sub1 = 'Speed of light. The best fitting plan of each family at each bandwidth (the plan may change along a line); everything else stays as today.'
sub2 = 'Filled dots: compute-bound there; open: bound by a link or HBM. Flat lines do not need more IB.'
sub1_font = ',15'
sub2_font = ',15'
sub3 = 'ZeRO-3: no IB bandwidth makes it compute-bound: its IB latency alone exceeds its compute time'
footer = 'roofplan test, topo communication model, at the inputs of 1970-01-01 00:00 UTC; model data/models/deepseek-v3.ini, hardware data/hardware/h800.ini, sweep data/sweeps/default.ini'
xlabel_text = 'InfiniBand bandwidth per GPU, GB/s (log scale)'
ylabel_text = 'time per step at the speed of light, s (log scale)'
today_label = 'today: 50 GB/s'
data = './sensitivity-ib.dat'
NFAM = 4
TODAY = 50
array fam_name[4]
array fam_color[4]
array fam_dash[4]
array fam_pt[4]
array fam_dt[4]
fam_name[1] = 'ZeRO-1+PP+EP'; fam_color[1] = '#0072B2'; fam_dash[1] = 0; fam_pt[1] = 6; fam_dt[1] = 1
fam_name[2] = 'ZeRO-3+PP+EP'; fam_color[2] = '#D55E00'; fam_dash[2] = 0; fam_pt[2] = 4; fam_dt[2] = 1
fam_name[3] = 'ZeRO-3+EP'; fam_color[3] = '#009E73'; fam_dash[3] = 0; fam_pt[3] = 8; fam_dt[3] = 1
fam_name[4] = 'ZeRO-3 (fastest plan; does not fit)'; fam_color[4] = '#000000'; fam_dash[4] = 1; fam_pt[4] = 6; fam_dt[4] = 1

# ---- layout ----
set lmargin at screen 0.075
set rmargin at screen 0.725
set bmargin at screen 0.125
set tmargin at screen 0.795

# Speed: gnuplot sets and clears a SIGFPE handler around every `using`
# expression of every point (three system calls each, most of its system
# time); this data is plain finite numbers, so nothing can trap.
set datafile nofpe_trap

set terminal pngcairo size 1600,900 noenhanced font 'Sans,15' background rgb '#FFFFFF'
set output './sensitivity-ib.png'

set logscale xy 10
set xrange [10:500]
set yrange [6.06651700937:570.56259395]
set xtics ('12.5' 12.5, '25' 25, '50' 50, '100' 100, '200' 200, '400' 400)

set format y '%g'
set ytics ('10' 10, '20' 20, '50' 50, '100' 100, '200' 200, '500' 500)

set xtics font ',16' nomirror
set ytics font ',16' nomirror
set mytics 10
set grid xtics ytics mytics lw 1 lc rgb '#DDDDDD', lw 1 lc rgb '#F0F0F0'
set border 3 lw 1.5
set xlabel xlabel_text font ',17' offset 0,-0.3
set ylabel ylabel_text font ',17' offset -1,0
set label 101 title_text at screen 0.015, screen 0.955 left font title_font front
set label 102 sub1 at screen 0.015, screen 0.905 left font sub1_font textcolor rgb '#333333' front
set label 103 sub2 at screen 0.015, screen 0.868 left font sub2_font textcolor rgb '#333333' front
set label 105 sub3 at screen 0.015, screen 0.828 left font 'Sans Bold,15' textcolor rgb '#000000' front
set label 104 footer at screen 0.985, screen 0.016 right font ',11' textcolor rgb '#777777' front
set style textbox opaque fillcolor rgb '#FFFFFF' noborder margins 2,1

set arrow 201 from TODAY, graph 0 to TODAY, graph 1 nohead lw 3 lc rgb '#000000' back
set label 202 today_label at TODAY, graph 0.97 left offset 0.6,0 boxed font 'Sans Bold,15' front

set key at screen 0.74, screen 0.795 left top vertical Left reverse samplen 2.5 spacing 1.15 font ',14'
set key title 'best plan of each family' font ',14' left


plot \
    for [i=1:NFAM] data index (i > 1 ? i - 1 : 0) using 1:(fam_dash[i] ? NaN : $2):($3 == 0 ? fam_pt[i] + 1 : fam_pt[i]) with linespoints pt variable ps 1.5 lw 2.5 dt fam_dt[i] lc rgb fam_color[i] title (fam_dash[i] ? '' : fam_name[i]), \
    for [i=1:NFAM] data index (i > 1 ? i - 1 : 0) using 1:(fam_dash[i] ? $2 : NaN):($3 == 0 ? 7 : 6) with linespoints pt variable ps 1.5 lw 2.5 dt (10,6) lc rgb fam_color[i] title (fam_dash[i] ? fam_name[i] : '')

set output

set terminal svg size 1600,900 noenhanced font 'Sans,15' fontscale 1.333 background rgb '#FFFFFF'
set output './sensitivity-ib.svg'
replot
set output

if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16.667in,9.375in noenhanced font 'Sans,15' fontscale 0.75
    set output './sensitivity-ib.pdf'
    replot
    set output
}
