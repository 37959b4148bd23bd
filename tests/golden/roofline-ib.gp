# roofline-ib.gp: written by roofplan from templates/roofline-ib.gp.in; edit and re-run `gnuplot roofline-ib.gp` in this directory.
# Roofline over InfiniBand: every plan that fits, translucent in its
# family's colour (dense clouds show density, none hides another), under
# the compute roofs (solid: achievable; dashed: datasheet peak) and the
# link's bandwidth slope; the best plan of the fastest few families
# numbered, the published plan circled, the baseline's best plan crossed
# when none of it fits. Numbers come from the data file and the values
# below; labels were placed by roofplan to avoid each other.
#
# Draws PNG (1600x900), SVG and, when gnuplot has pdfcairo, PDF.

# ---- values from the report ----
title_text = 'DeepSeek-V3 on 2048 × NVIDIA H800 SXM5 80GB: roofline over InfiniBand (inter-node), speed of light'
title_font = ',21'
sub1 = 'Each dot is a plan that fits in 71.3 GiB (5 of 12 valid plans). Numbered: the best plan of the 5 fastest families.'
sub2 = 'Left of a ridge: IB-bound; right of it, compute can hide the IB traffic the stack overlaps. Solid roofs: achievable (measured GEMM); dashed: datasheet peak.'
sub1_font = ',15'
sub2_font = ',14'
footer = 'roofplan test, topo communication model, at the inputs of 1970-01-01 00:00 UTC; model data/models/deepseek-v3.ini, hardware data/hardware/h800.ini, sweep data/sweeps/default.ini'
xlabel_text = 'operational intensity over IB: FLOPs per byte, per GPU per step'
ylabel_text = 'TFLOP/s per GPU at the speed of light (FLOPs / step)'
data = './roofline-ib.dat'
NFAM = 3
HAVE_PUBLISHED = 1
HAVE_BASELINE = 1
array fam_color[3]
array fam_dot[3]
array fam_key[3]
array fam_pt[3]
fam_color[1] = '#0072B2'; fam_dot[1] = '#A00072B2'; fam_key[1] = '1  ZeRO-1+PP+EP  8.59 s'; fam_pt[1] = 6
fam_color[2] = '#D55E00'; fam_dot[2] = '#A0D55E00'; fam_key[2] = '2  ZeRO-3+PP+EP  12.60 s'; fam_pt[2] = 4
fam_color[3] = '#009E73'; fam_dot[3] = '#A0009E73'; fam_key[3] = '3  ZeRO-3+EP  29.04 s'; fam_pt[3] = 8

# ---- layout: roofplan placed the labels for exactly these margins ----
set lmargin at screen 0.075
set rmargin at screen 0.735
set bmargin at screen 0.125
set tmargin at screen 0.835

# Speed: gnuplot sets and clears a SIGFPE handler around every `using`
# expression of every point (three system calls each, most of its system
# time); this data is plain finite numbers, so nothing can trap.
set datafile nofpe_trap

set terminal pngcairo size 1600,900 noenhanced font 'Sans,15' background rgb '#FFFFFF'
set output './roofline-ib.png'

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
set label 101 title_text at screen 0.015, screen 0.955 left font title_font front
set label 102 sub1 at screen 0.015, screen 0.905 left font sub1_font textcolor rgb '#333333' front
set label 103 sub2 at screen 0.015, screen 0.868 left font sub2_font textcolor rgb '#333333' front
set label 104 footer at screen 0.985, screen 0.016 right font ',11' textcolor rgb '#777777' front
# label boxes let the dots behind them show through
set style textbox opaque fillcolor rgb '#50FFFFFF' noborder margins 2,1

set key at screen 0.75, screen 0.835 left top vertical Left reverse samplen 1 spacing 1.2 font ',14'
set key title 'plans that fit, by family (speed-of-light step)' font ',14' left

set label '' at 39580, 1979 point pt 7 ps 1.6 lc rgb '#555555' front
set label '' at 29200, 1460 point pt 7 ps 1.6 lc rgb '#000000' front
set label '' at 19780, 989 point pt 7 ps 1.6 lc rgb '#555555' front
set label '' at 15160, 758 point pt 7 ps 1.6 lc rgb '#000000' front
set label 'FP8 peak 1,979 TFLOP/s' at 936679, 2310.05 right front boxed font ',13' textcolor rgb '#555555'
set label 'FP8 achievable 1,460 TFLOP/s' at 936679, 1704.23 right front boxed font ',13' textcolor rgb '#000000'
set label 'BF16 peak 989 TFLOP/s' at 936679, 1154.44 right front boxed font ',13' textcolor rgb '#555555'
set label 'BF16 achievable 758 TFLOP/s' at 936679, 649.371 right front boxed font ',13' textcolor rgb '#000000'
set label 'IB achievable 50 GB/s' at 1640.98, 98.6898 center rotate by 34.5 front font ',14' textcolor rgb '#000000'
set label '39.6k' at 34058.8, 2675.2 left front boxed font ',13'
set arrow from 39580, 1979 to 39580, 2393.53 nohead front lw 1.2 lc rgb '#333333'
set label 'ridge 29.2k FLOP/B' at 36811.6, 1154.26 left front boxed font ',13'
set arrow from 29200, 1460 to 35860.9, 1290.09 nohead front lw 1.2 lc rgb '#333333'
set label '19.8k' at 12643.8, 1188.83 left front boxed font ',13'
set arrow from 19780, 989 to 17528, 1063.66 nohead front lw 1.2 lc rgb '#333333'
set label 'ridge 15.2k FLOP/B' at 4145, 911.158 left front boxed font ',13'
set arrow from 15160, 758 to 13434, 815.223 nohead front lw 1.2 lc rgb '#333333'

set label '' at 28662.4226004, 1061.26504732 point pt 6 ps 4 lw 3 lc rgb '#000000' front
set label 'published plan' at 2158.05, 2049.5 left front boxed font ',14'
set label 'DeepSeek-V3 pre-training, 2048 x H800' at 2158.05, 1612.79 left front boxed font ',14'
set arrow from 28662.4, 1061.27 to 26323.8, 1430.69 nohead front lw 1.2 lc rgb '#333333'
set label '' at 28662.4226004, 1061.26504732 point pt 4 ps 4.5 lw 3 lc rgb '#000000' front
set label 'recommended plan' at 33345.3, 606.769 left front boxed font ',14'
set arrow from 28662.4, 1061.27 to 32484.1, 684.002 nohead front lw 1.2 lc rgb '#333333'
set label 'ZeRO-3 (the baseline): its best plan' at 1880.41, 41.25 left front boxed font ',14'
set label 'does not fit in memory' at 1880.41, 32.4605 left front boxed font ',14'
set arrow from 1607.21, 36.5923 to 1831.85, 36.5923 nohead front lw 1.2 lc rgb '#333333'
set label '1' at 27665.2, 1924.61 left front boxed font ',14'
set arrow from 28662.4, 1061.27 to 28662.4, 1707.29 nohead front lw 1.2 lc rgb '#333333'
set label '2' at 17633.9, 643.428 left front boxed font ',14'
set arrow from 15071.9, 643.428 to 17178.5, 643.428 nohead front lw 1.2 lc rgb '#333333'
set label '3' at 9434.79, 301.723 left front boxed font ',14'
set arrow from 8064, 301.723 to 9191.12, 301.723 nohead front lw 1.2 lc rgb '#333333'

# The key's entries first: `keyentry` draws one without plotting anything
# (a NaN function in its place is evaluated at every sample, on every
# terminal); a loop of HAVE_* turns, 0 or 1, draws one only when wanted.
# The roofs and slopes are sampled with '+' (as a function would be, at
# `set samples`) for the same reason: its `using` skips the FPE trap.
plot \
    for [i=1:NFAM] keyentry with points pt fam_pt[i] + 1 ps 2 lc rgb fam_color[i] title fam_key[i], \
    keyentry with points pt 7 ps 1.3 lc rgb '#777777' title 'FP8 plan (filled)', \
    keyentry with points pt 6 ps 1.3 lc rgb '#777777' title 'BF16 plan (open)', \
    keyentry with points pt 7 ps 2.4 lc rgb '#000000' title 'best plan of a numbered family', \
    for [k=1:HAVE_PUBLISHED] keyentry with points pt 6 ps 3 lw 3 lc rgb '#000000' title 'published plan', \
    for [k=1:HAVE_BASELINE] keyentry with points pt 2 ps 3 lw 3 lc rgb '#000000' title 'baseline: best plan, does not fit', \
    for [i=NFAM:1:-1] data index (i > 1 ? i - 1 : 0) using 1:2:($3 == 1 ? fam_pt[i > 1 ? i : 1] + 1 : fam_pt[i > 1 ? i : 1]) with points pt variable ps 0.9 lc rgb fam_dot[i > 1 ? i : 1] notitle, \
    '+' using 1:($1 >= 39580 ? 1979 : 1/0) with lines lw 2 dt (12,6) lc rgb '#555555' notitle, \
    '+' using 1:($1 >= 29200 ? 1460 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    '+' using 1:($1 >= 19780 ? 989 : 1/0) with lines lw 2 dt (12,6) lc rgb '#555555' notitle, \
    '+' using 1:($1 >= 15160 ? 758 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    '+' using 1:($1 * 0.05 < 1979 ? $1 * 0.05 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    data index NFAM using 1:2 with points pt 7 ps 2.3 lc rgb '#000000' notitle, \
    data index NFAM using 1:2:3 with points pt 7 ps 1.7 lc rgb variable notitle, \
    data index NFAM + 1 using 1:2 with points pt 2 ps 3 lw 3 lc rgb '#000000' notitle

set output

set terminal svg size 1600,900 noenhanced font 'Sans,15' fontscale 1.333 background rgb '#FFFFFF'
set output './roofline-ib.svg'
replot
set output

if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16.667in,9.375in noenhanced font 'Sans,15' fontscale 0.75
    set output './roofline-ib.pdf'
    replot
    set output
}
