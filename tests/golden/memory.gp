# memory.gp: written by roofplan from templates/memory.gp.in; edit and re-run `gnuplot memory.gp` in this directory.
# Memory per GPU of the best plan of each family (the heaviest pipeline
# rank): stacked bars of weights, gradients, optimizer state, activations
# and other (runtime), against the HBM capacity and the memory a plan may
# use (HBM less the headroom kept free). Families with a plan that fits
# are drawn on top; those where nothing fits below, each panel on its own
# scale so that no bar is cut and its parts keep their proportions.
#
# Draws PNG (1600x900), SVG and, when gnuplot has pdfcairo, PDF.

# ---- values from the report ----
title_text = 'DeepSeek-V3 on 2048 × NVIDIA H800 SXM5 80GB: memory per GPU (* the recommended plan)'
title_font = ',22'
sub1 = 'Heaviest pipeline rank: weights (ZeRO-3: with the gathered layers), gradients and optimizer state after ZeRO sharding, activations in flight, runtime.'
sub2 = 'A plan fits when it leaves 10% of HBM free (dashed line). Families where nothing fits are drawn below, on their own scale.'
sub1_font = ',14.5'
sub2_font = ',15'
footer = 'roofplan test, topo communication model, at the inputs of 1970-01-01 00:00 UTC; model data/models/deepseek-v3.ini, hardware data/hardware/h800.ini, sweep data/sweeps/default.ini'
xlabel_text = 'memory per GPU, GiB'
cap_label = 'HBM 79.2 GiB'
usable_label = 'fits: 71.3 GiB (10% free)'
unfit_label = 'Do not fit in 71.3 GiB (own scale: each bar whole)'
data = './memory.dat'
NFIT = 3
NUNFIT = 5
XMAX = 100
XMAX2 = 6000
CAPACITY = 79.21
USABLE = 71.289
c_weights = '#0077BB'
c_grads = '#33BBEE'
c_optimizer = '#009988'
c_activations = '#EE7733'
c_other = '#BBBBBB'
c_over = '#D55E00'
# ---- layout: two panels, screen fractions from roofplan ----
TOP1 = 0.755
BOTTOM1 = 0.55625
TOP2 = 0.45625
BOTTOM2 = 0.125
H = 0.34  # half the height of a bar

set lmargin at screen 0.17
set rmargin at screen 0.965
set xtics font ',16' nomirror out
set ytics font ',15' nomirror scale 0 offset -1.6,0
set mxtics 2
set grid xtics lw 1 lc rgb '#DDDDDD'
set border 1 lw 1.5
set style fill solid 1.0 border rgb '#FFFFFF'
set samples 100

# Speed: gnuplot sets and clears a SIGFPE handler around every `using`
# expression of every point (three system calls each, most of its system
# time); this data is plain finite numbers, so nothing can trap.
set datafile nofpe_trap

# The chart once per terminal: PNG, SVG, then PDF where gnuplot has it
# (a multiplot cannot be replotted).
do for [t = 1:3] {
if (t == 1) {
    set terminal pngcairo size 1600,900 noenhanced font 'Sans,15' background rgb '#FFFFFF'
    set output './memory.png'
}
if (t == 2) {
    set terminal svg size 1600,900 noenhanced font 'Sans,15' fontscale 1.333 background rgb '#FFFFFF'
    set output './memory.svg'
}
if (t == 3 && strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16.667in,9.375in noenhanced font 'Sans,15' fontscale 0.75
    set output './memory.pdf'
}
if (t < 3 || strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
set multiplot
set label 101 title_text at screen 0.015, screen 0.955 left font title_font front
set label 102 sub1 at screen 0.015, screen 0.905 left font sub1_font textcolor rgb '#333333' front
set label 103 sub2 at screen 0.015, screen 0.868 left font sub2_font textcolor rgb '#333333' front
set label 104 footer at screen 0.985, screen 0.016 right font ',11' textcolor rgb '#777777' front
set key at screen 0.17, screen 0.848 left top horizontal Left reverse samplen 1.2 width 1 font ',14' maxcols 5
if (NFIT > 0) {
    set tmargin at screen TOP1
    set bmargin at screen BOTTOM1
    set xrange [0:XMAX]
    set yrange [0.4:NFIT + 0.6]
    unset object
set ytics ('* ZeRO-1+PP+EP' 3, 'ZeRO-3+PP+EP' 2, 'ZeRO-3+EP' 1)

set object 1 rect from graph -0.014, first 2.7 to graph -0.004, first 3.3 fc rgb '#0072B2' fs solid 1.0 noborder front noclip
set object 2 rect from graph -0.014, first 1.7 to graph -0.004, first 2.3 fc rgb '#D55E00' fs solid 1.0 noborder front noclip
set object 3 rect from graph -0.014, first 0.7 to graph -0.004, first 1.3 fc rgb '#009E73' fs solid 1.0 noborder front noclip

    set label 202 cap_label at CAPACITY, graph 1 center offset 0,0.9 font 'Sans Bold,15' front
    set label 203 usable_label at USABLE, graph 1 right offset -0.8,0.9 font ',13' textcolor rgb '#555555' front
    set xlabel (NUNFIT > 0 ? '' : xlabel_text) font ',17'
    plot \
        data index 0 using (0):1:(0):2:($1-H):($1+H) with boxxyerror fc rgb c_weights title 'weights', \
        data index 0 using (0):1:2:($2+$3):($1-H):($1+H) with boxxyerror fc rgb c_grads title 'gradients', \
        data index 0 using (0):1:($2+$3):($2+$3+$4):($1-H):($1+H) with boxxyerror fc rgb c_optimizer title 'optimizer state', \
        data index 0 using (0):1:($2+$3+$4):($2+$3+$4+$5):($1-H):($1+H) with boxxyerror fc rgb c_activations title 'activations', \
        data index 0 using (0):1:($2+$3+$4+$5):($2+$3+$4+$5+$6):($1-H):($1+H) with boxxyerror fc rgb c_other title 'other (runtime)', \
        '+' using (CAPACITY):(0.4 + $0 * (NFIT + 0.2) / 99.0) with lines lw 3 dt (10,5) lc rgb '#000000' notitle, \
        '+' using (USABLE):(0.4 + $0 * (NFIT + 0.2) / 99.0) with lines lw 2 dt (4,4) lc rgb '#555555' notitle, \
        data index 0 using 7:1:(sprintf('%.1f GiB', $7)) with labels left offset 0.6,0 font ',14' notitle
    unset label
    unset key
}
if (NUNFIT > 0) {
    set tmargin at screen TOP2
    set bmargin at screen BOTTOM2
    set xrange [0:XMAX2]
    set yrange [0.4:NUNFIT + 0.6]
    unset object
set ytics ('ZeRO-1+EP' 5, 'ZeRO-1+PP' 4, 'ZeRO-1' 3, 'ZeRO-3' 2, 'ZeRO-3+PP' 1)

set object 1 rect from graph -0.014, first 4.7 to graph -0.004, first 5.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 2 rect from graph -0.014, first 3.7 to graph -0.004, first 4.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 3 rect from graph -0.014, first 2.7 to graph -0.004, first 3.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 4 rect from graph -0.014, first 1.7 to graph -0.004, first 2.3 fc rgb '#000000' fs solid 1.0 noborder front noclip
set object 5 rect from graph -0.014, first 0.7 to graph -0.004, first 1.3 fc rgb '#999999' fs solid 1.0 noborder front noclip

    set label 204 unfit_label at graph 0, graph 1 left offset 0,0.8 font 'Sans Bold,14' textcolor rgb c_over front
    set xlabel xlabel_text font ',17'
    plot \
        data index 1 using (0):1:(0):2:($1-H):($1+H) with boxxyerror fc rgb c_weights title 'weights', \
        data index 1 using (0):1:2:($2+$3):($1-H):($1+H) with boxxyerror fc rgb c_grads title 'gradients', \
        data index 1 using (0):1:($2+$3):($2+$3+$4):($1-H):($1+H) with boxxyerror fc rgb c_optimizer title 'optimizer state', \
        data index 1 using (0):1:($2+$3+$4):($2+$3+$4+$5):($1-H):($1+H) with boxxyerror fc rgb c_activations title 'activations', \
        data index 1 using (0):1:($2+$3+$4+$5):($2+$3+$4+$5+$6):($1-H):($1+H) with boxxyerror fc rgb c_other title 'other (runtime)', \
        '+' using (CAPACITY):(0.4 + $0 * (NUNFIT + 0.2) / 99.0) with lines lw 3 dt (10,5) lc rgb '#000000' notitle, \
        data index 1 using 7:1:(sprintf('%.0f GiB: does not fit', $7)) with labels left offset 0.6,0 font 'Sans Bold,14' textcolor rgb c_over notitle
    unset label
}
unset multiplot
set output
}
}
