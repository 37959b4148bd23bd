# memory.gp: written by roofplan from templates/memory.gp.in; edit and re-run `gnuplot memory.gp` in this directory.
# Memory per GPU of the best plan of each family (the heaviest pipeline
# rank): stacked bars of weights, gradients, optimizer state, activations
# and other (runtime), against the HBM capacity. Totals that do not fit
# are written in red; bars longer than the axis run off the right edge.
#
# Draws PNG (1600x900), SVG and, when gnuplot has pdfcairo, PDF.

# ---- values from the report ----
title_text = 'Llama 3 405B on 16384 × NVIDIA H100 SXM5 80GB: memory per GPU (best plan of each family)'
sub1 = 'Bytes on the heaviest pipeline rank: weights, gradients and optimizer state after ZeRO sharding, activations in flight, runtime overhead.'
sub2 = 'Red totals do not fit in 79.2 GiB; bars past the right edge are cut.'
footer = 'roofplan 0.1.0, topo communication model; model data/models/llama-3-405b.ini, hardware data/hardware/h100.ini, sweep data/sweeps/default.ini'
xlabel_text = 'memory per GPU, GiB'
cap_label = 'HBM 79.2 GiB'
data = './memory.dat'
NROWS = 16
XMAX = 120
CAPACITY = 79.21
c_weights = '#0077BB'
c_grads = '#33BBEE'
c_optimizer = '#009988'
c_activations = '#EE7733'
c_other = '#BBBBBB'
c_over = '#D55E00'
set ytics ('ZeRO-1+TP+PP' 16, 'ZeRO-2+TP+PP' 15, 'DP+TP+PP' 14, 'ZeRO-3' 13, 'ZeRO-3+PP' 12, 'ZeRO-3+TP' 11, 'ZeRO-3+TP+PP' 10, 'ZeRO-2+PP' 9, 'ZeRO-1' 8, 'ZeRO-2' 7, 'ZeRO-1+PP' 6, 'ZeRO-1+TP' 5, 'ZeRO-2+TP' 4, 'DP+TP' 3, 'DP' 2, 'DP+PP' 1)

set object 1 rect from graph -0.014, first 15.7 to graph -0.004, first 16.3 fc rgb '#0072B2' fs solid 1.0 noborder front noclip
set object 2 rect from graph -0.014, first 14.7 to graph -0.004, first 15.3 fc rgb '#D55E00' fs solid 1.0 noborder front noclip
set object 3 rect from graph -0.014, first 13.7 to graph -0.004, first 14.3 fc rgb '#009E73' fs solid 1.0 noborder front noclip
set object 4 rect from graph -0.014, first 12.7 to graph -0.004, first 13.3 fc rgb '#CC79A7' fs solid 1.0 noborder front noclip
set object 5 rect from graph -0.014, first 11.7 to graph -0.004, first 12.3 fc rgb '#E69F00' fs solid 1.0 noborder front noclip
set object 6 rect from graph -0.014, first 10.7 to graph -0.004, first 11.3 fc rgb '#56B4E9' fs solid 1.0 noborder front noclip
set object 7 rect from graph -0.014, first 9.7 to graph -0.004, first 10.3 fc rgb '#332288' fs solid 1.0 noborder front noclip
set object 8 rect from graph -0.014, first 8.7 to graph -0.004, first 9.3 fc rgb '#882255' fs solid 1.0 noborder front noclip
set object 9 rect from graph -0.014, first 7.7 to graph -0.004, first 8.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 10 rect from graph -0.014, first 6.7 to graph -0.004, first 7.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 11 rect from graph -0.014, first 5.7 to graph -0.004, first 6.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 12 rect from graph -0.014, first 4.7 to graph -0.004, first 5.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 13 rect from graph -0.014, first 3.7 to graph -0.004, first 4.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 14 rect from graph -0.014, first 2.7 to graph -0.004, first 3.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 15 rect from graph -0.014, first 1.7 to graph -0.004, first 2.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 16 rect from graph -0.014, first 0.7 to graph -0.004, first 1.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set arrow from graph 0, first 8.5 to graph 1, first 8.5 nohead dt (8,6) lw 1.5 lc rgb '#555555' front

# ---- layout ----
set lmargin at screen 0.17
set rmargin at screen 0.965
set bmargin at screen 0.125
set tmargin at screen 0.755

set terminal pngcairo size 1600,900 noenhanced font 'Sans,15' background rgb '#FFFFFF'
set output './memory.png'

H = 0.34  # half the height of a bar
set xrange [0:XMAX]
# A label not to draw goes far left of the axis: gnuplot 5.4 crashes when
# every point of a `with labels` plot is undefined (1/0).
NOLABEL = -1e30
set yrange [0.4:NROWS + 0.6]
set xtics font ',16' nomirror out
set ytics font ',15' nomirror scale 0 offset -1.6,0
set mxtics 2
set grid xtics lw 1 lc rgb '#DDDDDD'
set border 1 lw 1.5
set xlabel xlabel_text font ',17'
set label 101 title_text at screen 0.015, screen 0.955 left font ',22' front
set label 102 sub1 at screen 0.015, screen 0.905 left font ',15' textcolor rgb '#333333' front
set label 103 sub2 at screen 0.015, screen 0.868 left font ',15' textcolor rgb '#333333' front
set label 104 footer at screen 0.985, screen 0.016 right font ',11' textcolor rgb '#777777' front
set style textbox opaque fillcolor rgb '#FFFFFF' noborder margins 2,1
set style fill solid 1.0 border rgb '#FFFFFF'
set key at screen 0.17, screen 0.848 left top horizontal Left reverse samplen 1.2 width 1 font ',14' maxcols 4

# the capacity line is plotted after the bars and before the labels, so
# it crosses the bars but not the numbers
set samples 100
set label 202 cap_label at CAPACITY, graph 1 center offset 0,0.9 font 'Sans Bold,15' front

plot \
    data using (0):1:(0):2:($1-H):($1+H) with boxxyerror fc rgb c_weights title 'weights', \
    data using (0):1:2:($2+$3):($1-H):($1+H) with boxxyerror fc rgb c_grads title 'gradients', \
    data using (0):1:($2+$3):($2+$3+$4):($1-H):($1+H) with boxxyerror fc rgb c_optimizer title 'optimizer state', \
    data using (0):1:($2+$3+$4):($2+$3+$4+$5):($1-H):($1+H) with boxxyerror fc rgb c_activations title 'activations', \
    data using (0):1:($2+$3+$4+$5):($2+$3+$4+$5+$6):($1-H):($1+H) with boxxyerror fc rgb c_other title 'other (runtime)', \
    '+' using (CAPACITY):(0.4 + $0 * (NROWS + 0.2) / 99.0) with lines lw 3 dt (10,5) lc rgb '#000000' notitle, \
    data using ($7 > XMAX || $9 == 0 ? NOLABEL : $7):1:(sprintf('%.1f GiB', $7)) with labels left offset 0.6,0 boxed font ',14' notitle, \
    data using ($7 > XMAX || $9 == 1 ? NOLABEL : $7):1:(sprintf('%.1f GiB: does not fit', $7)) with labels left offset 0.6,0 boxed font 'Sans Bold,14' textcolor rgb c_over notitle, \
    data using ($7 > XMAX ? XMAX : NOLABEL):1:(sprintf('%.0f GiB: does not fit ▶', $7)) with labels right offset -0.3,0 boxed font 'Sans Bold,14' textcolor rgb c_over notitle

set output

set terminal svg size 1600,900 noenhanced font 'Sans,15' fontscale 1.333 background rgb '#FFFFFF'
set output './memory.svg'
replot
set output

if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16.667in,9.375in noenhanced font 'Sans,15' fontscale 0.75
    set output './memory.pdf'
    replot
    set output
}
