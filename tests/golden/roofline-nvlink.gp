# roofline-nvlink.gp: written by roofplan from templates/roofline-nvlink.gp.in; edit and re-run `gnuplot roofline-nvlink.gp` in this directory.
# Roofline over NVLink: every plan that fits, translucent in its family's
# colour (dense clouds show density, none hides another), under
# the compute roofs (solid: achievable; dashed: datasheet peak) and the
# link's bandwidth slope; the best plan of the fastest few families
# numbered, the published plan circled, the baseline's best plan crossed
# when none of it fits. Numbers come from the data file and the values
# below; labels were placed by roofplan to avoid each other.
#
# Draws PNG (1600x900), SVG and, when gnuplot has pdfcairo, PDF.

# ---- values from the report ----
title_text = 'DeepSeek-V3 on 2048 × NVIDIA H800 SXM5 80GB: roofline over NVLink (intra-node), speed of light'
title_font = ',22'
sub1 = 'Each dot is a plan that fits in 71.3 GiB (5 of 12 valid plans). Numbered: the best plan of the 5 fastest families.'
sub2 = 'Left of a ridge: NVLink-bound; right of it, compute can hide the NVLink traffic the stack overlaps. Solid roofs: achievable (measured GEMM); dashed: datasheet peak.'
sub1_font = ',15'
sub2_font = ',13.5'
footer = 'roofplan test, topo communication model, at the inputs of 1970-01-01 00:00 UTC; model data/models/deepseek-v3.ini, hardware data/hardware/h800.ini, sweep data/sweeps/default.ini'
xlabel_text = 'operational intensity over NVLink: FLOPs per byte, per GPU per step'
ylabel_text = 'TFLOP/s per GPU at the speed of light (FLOPs / step)'
data = './roofline-nvlink.dat'
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
set output './roofline-nvlink.png'

set logscale xy 10
set xrange [100:100000]
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

set label '' at 9895, 1979 point pt 7 ps 1.6 lc rgb '#555555' front
set label '' at 9125, 1460 point pt 7 ps 1.6 lc rgb '#000000' front
set label '' at 4945, 989 point pt 7 ps 1.6 lc rgb '#555555' front
set label '' at 4737.5, 758 point pt 7 ps 1.6 lc rgb '#000000' front
set label 'FP8 peak 1,979 TFLOP/s' at 93667.9, 2310.05 right front boxed font ',13' textcolor rgb '#555555'
set label 'FP8 achievable 1,460 TFLOP/s' at 93667.9, 1704.23 right front boxed font ',13' textcolor rgb '#000000'
set label 'BF16 peak 989 TFLOP/s' at 93667.9, 1154.44 right front boxed font ',13' textcolor rgb '#555555'
set label 'BF16 achievable 758 TFLOP/s' at 93667.9, 649.371 right front boxed font ',13' textcolor rgb '#000000'
set label 'NVLink achievable 160 GB/s' at 577.4, 76.8063 center rotate by 34.5 front font ',14' textcolor rgb '#000000'
set label 'NVLink peak 200 GB/s' at 410.244, 98.6898 center rotate by 34.5 front font ',14' textcolor rgb '#555555'
set label '9.89k' at 6262.41, 1979 left front boxed font ',13'
set arrow from 9895, 1979 to 8681.56, 1979 nohead front lw 1.2 lc rgb '#333333'
set label 'ridge 9.12k FLOP/B' at 2470.2, 1460 left front boxed font ',13'
set arrow from 9125, 1460 to 8005.98, 1460 nohead front lw 1.2 lc rgb '#333333'
set label '4.95k' at 3129.62, 989 left front boxed font ',13'
set arrow from 4945, 989 to 4338.59, 989 nohead front lw 1.2 lc rgb '#333333'
set label 'ridge 4.74k FLOP/B' at 1282.48, 758 left front boxed font ',13'
set arrow from 4737.5, 758 to 4156.53, 758 nohead front lw 1.2 lc rgb '#333333'

set label '' at 16145.6328032, 1061.26504732 point pt 6 ps 4 lw 3 lc rgb '#000000' front
set label 'published plan' at 1043.48, 3502.53 left front boxed font ',14'
set label 'DeepSeek-V3 pre-training, 2048 x H800' at 1043.48, 2756.22 left front boxed font ',14'
set arrow from 16145.6, 1061.27 to 12728.4, 2445.01 nohead front lw 1.2 lc rgb '#333333'
set label '' at 16145.6328032, 1061.26504732 point pt 4 ps 4.5 lw 3 lc rgb '#000000' front
set label 'recommended plan' at 9285.98, 483.851 left front boxed font ',14'
set arrow from 16145.6, 1061.27 to 16145.6, 545.439 nohead front lw 1.2 lc rgb '#333333'
set label 'ZeRO-3 (the baseline): its best plan' at 246.82, 27.2301 left front boxed font ',14'
set label 'does not fit in memory' at 246.82, 21.428 left front boxed font ',14'
set arrow from 228.704, 36.5923 to 240.446, 30.6961 nohead front lw 1.2 lc rgb '#333333'
set label '1' at 15583.9, 2327.75 left front boxed font ',14'
set arrow from 16145.6, 1061.27 to 16145.6, 2064.91 nohead front lw 1.2 lc rgb '#333333'
set label '2' at 9673.5, 643.428 left front boxed font ',14'
set arrow from 8268.03, 643.428 to 9423.67, 643.428 nohead front lw 1.2 lc rgb '#333333'
set label '3' at 6386.79, 301.723 left front boxed font ',14'
set arrow from 5458.84, 301.723 to 6221.84, 301.723 nohead front lw 1.2 lc rgb '#333333'

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
    '+' using 1:($1 >= 9895 ? 1979 : 1/0) with lines lw 2 dt (12,6) lc rgb '#555555' notitle, \
    '+' using 1:($1 >= 9125 ? 1460 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    '+' using 1:($1 >= 4945 ? 989 : 1/0) with lines lw 2 dt (12,6) lc rgb '#555555' notitle, \
    '+' using 1:($1 >= 4737.5 ? 758 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    '+' using 1:($1 * 0.16 < 1460 ? $1 * 0.16 : 1/0) with lines lw 3 dt 1 lc rgb '#000000' notitle, \
    '+' using 1:($1 * 0.2 < 1979 ? $1 * 0.2 : 1/0) with lines lw 2 dt (12,6) lc rgb '#555555' notitle, \
    data index NFAM using 1:2 with points pt 7 ps 2.3 lc rgb '#000000' notitle, \
    data index NFAM using 1:2:3 with points pt 7 ps 1.7 lc rgb variable notitle, \
    data index NFAM + 1 using 1:2 with points pt 2 ps 3 lw 3 lc rgb '#000000' notitle

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
