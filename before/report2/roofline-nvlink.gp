# roofline-nvlink.gp: written by roofplan from templates/roofline-nvlink.gp.in; edit and re-run `gnuplot roofline-nvlink.gp` in this directory.
# Roofline over NVLink: every plan that fits, coloured by family, under
# the compute roofs (solid: achievable; dashed: datasheet peak) and the
# link's bandwidth slope. Numbers come from the data file and the values
# below; labels were placed by roofplan to avoid each other.
#
# Draws PNG (1600x900), SVG and, when gnuplot has pdfcairo, PDF.

# ---- values from the report ----
title_text = 'Llama 3 405B on 16384 × NVIDIA H100 SXM5 80GB: roofline over NVLink (intra-node)'
sub1 = 'Each dot is a plan that fits in 79.2 GiB (50 of 6,048 valid plans). Left of a ridge a plan is NVLink-bound; right of it, compute can hide its NVLink traffic.'
sub2 = 'Solid roofs: achievable (measured GEMM on the 112 of 132 SMs left to compute); dashed: datasheet peak. Numbered: the best plan of each family.'
footer = 'roofplan 0.1.0, topo communication model; model data/models/llama-3-405b.ini, hardware data/hardware/h100.ini, sweep data/sweeps/default.ini'
xlabel_text = 'operational intensity over NVLink: FLOPs per byte, per GPU per step'
ylabel_text = 'attained TFLOP/s per GPU (executed FLOPs / step time)'
data = './roofline-nvlink.dat'
NFAM = 7
HAVE_PUBLISHED = 1
array fam_color[7]
array fam_key[7]
fam_color[1] = '#0072B2'; fam_key[1] = '1  ZeRO-1+TP+PP  17.78 s'
fam_color[2] = '#D55E00'; fam_key[2] = '2  ZeRO-2+TP+PP  17.78 s'
fam_color[3] = '#009E73'; fam_key[3] = '3  DP+TP+PP  17.84 s'
fam_color[4] = '#CC79A7'; fam_key[4] = '4  ZeRO-3  24.05 s'
fam_color[5] = '#E69F00'; fam_key[5] = '5  ZeRO-3+PP  24.05 s'
fam_color[6] = '#56B4E9'; fam_key[6] = '6  ZeRO-3+TP  24.05 s'
fam_color[7] = '#332288'; fam_key[7] = '7  ZeRO-3+TP+PP  24.05 s'

# ---- layout: roofplan placed the labels for exactly these margins ----
set lmargin at screen 0.075
set rmargin at screen 0.735
set bmargin at screen 0.125
set tmargin at screen 0.835

set terminal pngcairo size 1600,900 noenhanced font 'Sans,15' background rgb '#FFFFFF'
set output './roofline-nvlink.png'

set logscale xy 10
set xrange [1000:1000000]
set yrange [10:4353.8]
set format x '%.0s%c'
set format y '%g'
set xtics font ',16' nomirror
set ytics font ',16' nomirror
set mxtics 10
set mytics 10
set grid xtics ytics lw 1 lc rgb '#DDDDDD'
set border 3 lw 1.5
set xlabel xlabel_text font ',17' offset 0,-0.3
set ylabel ylabel_text font ',17' offset -1,0
set label 101 title_text at screen 0.015, screen 0.955 left font ',22' front
set label 102 sub1 at screen 0.015, screen 0.905 left font ',15' textcolor rgb '#333333' front
set label 103 sub2 at screen 0.015, screen 0.868 left font ',15' textcolor rgb '#333333' front
set label 104 footer at screen 0.985, screen 0.016 right font ',11' textcolor rgb '#777777' front
set style textbox opaque fillcolor rgb '#FFFFFF' noborder margins 2,1

set key at screen 0.75, screen 0.835 left top vertical Left reverse samplen 1 spacing 1.2 font ',14'
set key title 'plans that fit, by family (best step)' font ',14' left

set label '' at 4397.77777778, 1979 point pt 7 ps 1.6 lc rgb '#555555' front
set label '' at 3217.36281736, 1190.42424242 point pt 7 ps 1.6 lc rgb '#000000' front
set label '' at 2197.77777778, 989 point pt 7 ps 1.6 lc rgb '#555555' front
set label '' at 1738.24733825, 643.151515152 point pt 7 ps 1.6 lc rgb '#000000' front
set label 'FP8 peak 1,979 TFLOP/s' at 936679, 2310.05 right front boxed font ',13' textcolor rgb '#555555'
set label 'FP8 achievable 1,190 TFLOP/s' at 936679, 1389.56 right front boxed font ',13' textcolor rgb '#000000'
set label 'BF16 peak 989 TFLOP/s' at 936679, 847.267 right front boxed font ',13' textcolor rgb '#555555'
set label 'BF16 achievable 643 TFLOP/s' at 936679, 550.982 right front boxed font ',13' textcolor rgb '#000000'
set label 'NVLink achievable 370 GB/s' at 1591.67, 489.616 center rotate by 34.5 front font ',14' textcolor rgb '#000000'
set label 'NVLink peak 450 GB/s' at 1413.61, 765.141 center rotate by 34.5 front font ',14' textcolor rgb '#555555'
set label '4.4k' at 3910.82, 2675.2 left front boxed font ',13'
set arrow from 4397.78, 1979 to 4397.78, 2393.53 nohead front lw 1.2 lc rgb '#333333'
set label 'ridge 3.22k FLOP/B' at 3622.77, 1522.02 left front boxed font ',13'
set arrow from 3217.36, 1190.42 to 3529.2, 1361.77 nohead front lw 1.2 lc rgb '#333333'
set label '2.2k' at 1954.42, 1778.27 left front boxed font ',13'
set arrow from 2197.78, 989 to 2197.78, 1591.04 nohead front lw 1.2 lc rgb '#333333'
set label 'ridge 1.74k FLOP/B' at 2663.31, 141.105 left front boxed font ',13'
set arrow from 1738.25, 643.152 to 2594.53, 157.71 nohead front lw 1.2 lc rgb '#333333'

set label '' at 10861.7142857, 499.241064174 point pt 6 ps 4 lw 3 lc rgb '#000000' front
set label 'published plan' at 12140.2, 328.515 left front boxed font ',14'
set label 'Llama 3 405B pre-training, 16384 x H100' at 12140.2, 258.516 left front boxed font ',14'
set arrow from 10861.7, 499.241 to 11826.7, 370.33 nohead front lw 1.2 lc rgb '#333333'
set label '1' at 9376.35, 820.152 left front boxed font ',14'
set arrow from 10861.7, 1102.14 to 10331.3, 924.546 nohead front lw 1.2 lc rgb '#333333'
set label '2' at 11722.1, 820.152 left front boxed font ',14'
set arrow from 10861.7, 1102.14 to 11419.4, 924.546 nohead front lw 1.2 lc rgb '#333333'
set label '3' at 12887.6, 1401.46 left front boxed font ',14'
set arrow from 10222.8, 1098.54 to 12554.7, 1243.22 nohead front lw 1.2 lc rgb '#333333'
set label '4' at 7525.27, 809.076 left front boxed font ',14'
set arrow from 9703.83, 1146.32 to 8291.69, 912.06 nohead front lw 1.2 lc rgb '#333333'
set label '5' at 5768.94, 788.222 left front boxed font ',14'
set arrow from 9703.83, 1146.32 to 6356.49, 888.551 nohead front lw 1.2 lc rgb '#333333'
set label '6' at 15200.8, 1667.12 left front boxed font ',14'
set arrow from 9700.09, 1146.32 to 14808.2, 1478.88 nohead front lw 1.2 lc rgb '#333333'
set label '7' at 11864.3, 2390.09 left front boxed font ',14'
set arrow from 9700.09, 1146.32 to 11557.9, 2120.22 nohead front lw 1.2 lc rgb '#333333'

plot \
    for [i=1:NFAM] NaN with points pt 7 ps 2 lc rgb fam_color[i] title fam_key[i], \
    NaN with points pt 7 ps 1.3 lc rgb '#777777' title 'FP8 plan', \
    NaN with points pt 9 ps 1.6 lc rgb '#777777' title 'BF16 plan', \
    NaN with points pt 7 ps 2.4 lc rgb '#000000' title 'best plan of a family', \
    (HAVE_PUBLISHED ? NaN : 1/0) with points pt 6 ps 3 lw 3 lc rgb '#000000' title (HAVE_PUBLISHED ? 'published plan' : ''), \
    for [i=NFAM:1:-1] data index (i > 1 ? i - 1 : 0) using 1:2:($3 == 1 ? 7 : 9) with points pt variable ps 0.9 lc rgb fam_color[i > 1 ? i : 1] notitle, \
    (x >= 4397.77777778 ? 1979 : 1/0) with lines lw 2 dt (12,6) lc rgb '#555555' notitle, \
    (x >= 3217.36281736 ? 1190.42424242 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    (x >= 2197.77777778 ? 989 : 1/0) with lines lw 2 dt (12,6) lc rgb '#555555' notitle, \
    (x >= 1738.24733825 ? 643.151515152 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    (x * 0.37 < 1190.42424242 ? x * 0.37 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    (x * 0.45 < 1979 ? x * 0.45 : 1/0) with lines lw 2 dt (12,6) lc rgb '#555555' notitle, \
    data index NFAM using 1:2 with points pt 7 ps 2.3 lc rgb '#000000' notitle, \
    data index NFAM using 1:2:3 with points pt 7 ps 1.7 lc rgb variable notitle

set output

set terminal svg size 1600,900 noenhanced font 'Sans,15' fontscale 1.333 background rgb '#FFFFFF'
set output './roofline-nvlink.svg'
replot
set output

if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16.667in,9.375in noenhanced font 'Sans,15' fontscale 0.75
    set output './roofline-nvlink.pdf'
    replot
    set output
}
