# step-breakdown.gp: written by roofplan from templates/step-breakdown.gp.in; edit and re-run `gnuplot step-breakdown.gp` in this directory.
# Step-time breakdown of the best plan of each family: stacked bars of
# compute, the exposed (not overlapped) time of the binding link or HBM,
# the pipeline bubble and the optimizer step; a diamond at the serial
# (no-overlap) step time; where the report has an expected step, a hatched
# segment from the speed of light on to it. Families sorted as in the
# report: fitting first, then by the step they rank by. Bars longer than the axis run off the right edge with
# their value written there.
#
# Draws PNG (1600x900), SVG and, when gnuplot has pdfcairo, PDF.

# ---- values from the report ----
title_text = 'DeepSeek-V3 on 2048 × NVIDIA H800 SXM5 80GB: where the step time goes (* the recommended plan)'
title_font = ',22'
sub1 = 'Speed of light. Only the binding link''s time beyond compute is exposed (it overlaps compute). Diamond: the step with no overlap.'
sub2 = 'Below the dashed line no plan of the family fits in 71.3 GiB (10% of HBM kept free; its fastest plan is shown).'
sub1_font = ',15'
sub2_font = ',15'
footer = 'roofplan test, topo communication model, at the inputs of 1970-01-01 00:00 UTC; model data/models/deepseek-v3.ini, hardware data/hardware/h800.ini, sweep data/sweeps/default.ini'
xlabel_text = 'time per step at the speed of light, s'
data = './step-breakdown.dat'
NROWS = 8
EXPECTED = 0
XMAX = 30
c_compute = '#0077BB'
c_ib = '#EE7733'
c_nvlink = '#CC3311'
c_hbm = '#EE3377'
c_bubble = '#BBBBBB'
c_optimizer = '#009988'
c_expected = '#004488'
set ytics ('* ZeRO-1+PP+EP' 8, 'ZeRO-3+PP+EP' 7, 'ZeRO-3+EP' 6, 'ZeRO-1+EP' 5, 'ZeRO-1+PP' 4, 'ZeRO-1' 3, 'ZeRO-3' 2, 'ZeRO-3+PP' 1)

set object 1 rect from graph -0.014, first 7.7 to graph -0.004, first 8.3 fc rgb '#0072B2' fs solid 1.0 noborder front noclip
set object 2 rect from graph -0.014, first 6.7 to graph -0.004, first 7.3 fc rgb '#D55E00' fs solid 1.0 noborder front noclip
set object 3 rect from graph -0.014, first 5.7 to graph -0.004, first 6.3 fc rgb '#009E73' fs solid 1.0 noborder front noclip
set object 4 rect from graph -0.014, first 4.7 to graph -0.004, first 5.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 5 rect from graph -0.014, first 3.7 to graph -0.004, first 4.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 6 rect from graph -0.014, first 2.7 to graph -0.004, first 3.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set object 7 rect from graph -0.014, first 1.7 to graph -0.004, first 2.3 fc rgb '#000000' fs solid 1.0 noborder front noclip
set object 8 rect from graph -0.014, first 0.7 to graph -0.004, first 1.3 fc rgb '#999999' fs solid 1.0 noborder front noclip
set arrow from graph 0, first 5.5 to graph 1, first 5.5 nohead dt (8,6) lw 1.5 lc rgb '#555555' front

# ---- layout ----
set lmargin at screen 0.17
set rmargin at screen 0.965
set bmargin at screen 0.125
set tmargin at screen 0.755

# Speed: gnuplot sets and clears a SIGFPE handler around every `using`
# expression of every point (three system calls each, most of its system
# time); this data is plain finite numbers, so nothing can trap.
set datafile nofpe_trap

set terminal pngcairo size 1600,900 noenhanced font 'Sans,15' background rgb '#FFFFFF'
set output './step-breakdown.png'

H = 0.34  # half the height of a bar
set xrange [0:XMAX]
set yrange [0.4:NROWS + 0.6]
set xtics font ',16' nomirror out
set ytics font ',15' nomirror scale 0 offset -1.6,0
set mxtics 2
set grid xtics lw 1 lc rgb '#DDDDDD'
set border 1 lw 1.5
set xlabel xlabel_text font ',17'
set label 101 title_text at screen 0.015, screen 0.955 left font title_font front
set label 102 sub1 at screen 0.015, screen 0.905 left font sub1_font textcolor rgb '#333333' front
set label 103 sub2 at screen 0.015, screen 0.868 left font sub2_font textcolor rgb '#333333' front
set label 104 footer at screen 0.985, screen 0.016 right font ',11' textcolor rgb '#777777' front
set style textbox opaque fillcolor rgb '#FFFFFF' noborder margins 2,1
set style fill solid 1.0 border rgb '#FFFFFF'
set key at screen 0.17, screen 0.848 left top horizontal Left reverse samplen 1.2 width 1 font ',14' maxcols 4

s1(c,i,n,h,b,o) = c
s2(c,i,n,h,b,o) = c + i
s3(c,i,n,h,b,o) = c + i + n
s4(c,i,n,h,b,o) = c + i + n + h
s5(c,i,n,h,b,o) = c + i + n + h + b
s6(c,i,n,h,b,o) = c + i + n + h + b + o
after(x) = x > XMAX ? 1/0 : x   # hide what lies past the axis
# the step time is written after the bar (its expected segment included),
# or after the diamond when the diamond is close; a bar past the axis has
# it at the right edge
end(step, x) = x > step ? x : step
at(step, serial) = (serial > step && serial - step < 0.07 * XMAX && serial <= XMAX) ? serial : step
# a row's label: the speed of light, and the expected step where known
text(step, x) = x > 0 ? sprintf('%.2f s, expected %.2f s', step, x) : sprintf('%.2f s', step)
# A label not to draw goes far left of the axis: gnuplot 5.4 crashes when
# every point of a `with labels` plot is undefined (1/0).
NOLABEL = -1e30
lx(step, serial) = at(step, serial) > 0.9 * XMAX ? NOLABEL : at(step, serial)
# near or past the right edge: inside the bar's end, with an arrow if cut
rx(step, serial) = at(step, serial) > 0.9 * XMAX ? (step > XMAX ? XMAX : step) : NOLABEL

plot \
    data using (0):1:(0):2:($1-H):($1+H) with boxxyerror fc rgb c_compute title 'compute', \
    data using (0):1:2:($2+$3):($1-H):($1+H) with boxxyerror fc rgb c_ib title 'exposed IB', \
    data using (0):1:($2+$3):($2+$3+$4):($1-H):($1+H) with boxxyerror fc rgb c_nvlink title 'exposed NVLink', \
    data using (0):1:($2+$3+$4):($2+$3+$4+$5):($1-H):($1+H) with boxxyerror fc rgb c_hbm title 'exposed HBM', \
    data using (0):1:($2+$3+$4+$5):($2+$3+$4+$5+$6):($1-H):($1+H) with boxxyerror fc rgb c_bubble title 'pipeline bubble', \
    data using (0):1:($2+$3+$4+$5+$6):($2+$3+$4+$5+$6+$7):($1-H):($1+H) with boxxyerror fc rgb c_optimizer title 'optimizer step', \
    data using (0):($12 > $8 ? $1 : 1/0):8:12:($1-H):($1+H) with boxxyerror fs pattern 4 border lc rgb c_expected fc rgb c_expected title (EXPECTED ? 'on to the expected step' : ''), \
    data using (after($9)):1 with points pt 13 ps 2.2 lc rgb '#000000' title 'step without overlap', \
    data using (lx(end($8, $12), $9)):1:(text($8, $12)) with labels left offset 1.2,0 boxed font ',14' notitle, \
    data using (rx(end($8, $12), $9)):1:(end($8, $12) > XMAX ? sprintf('%.1f s ▶', end($8, $12)) : text($8, $12)) with labels right offset -0.3,0 boxed font ',14' notitle

set output

set terminal svg size 1600,900 noenhanced font 'Sans,15' fontscale 1.333 background rgb '#FFFFFF'
set output './step-breakdown.svg'
replot
set output

if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16.667in,9.375in noenhanced font 'Sans,15' fontscale 0.75
    set output './step-breakdown.pdf'
    replot
    set output
}
