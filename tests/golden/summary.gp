# summary.gp: written by roofplan from templates/summary.gp.in; edit and re-run `gnuplot summary.gp` in this directory.
# The summary card: the one page a design review attaches. The verdict,
# the recommended plan in words, its expected step, days and cost (with
# its range, and why it was chosen over the fastest) beside the speed of
# light, its wall-clock days and energy, the recipe it plans at; below, the waterfall from the speed of light to the
# expected step of the recommended plan, and the roofline over InfiniBand
# with every plan that fits and the recommended one ringed.
#
# Draws PNG (1600x1000), SVG and, when gnuplot has pdfcairo, PDF (one
# landscape page).

# ---- values from the report ----
title_text = 'DeepSeek-V3 on 2048 × NVIDIA H800 SXM5 80GB: planning summary'
title_font = ',22'
plan_text = 'Recommended: TP 1 x PP 16 (DualPipe) x EP 64, ZeRO-1 over DP 128, FP8, selective recomputation,'
plan_text2 = 'micro-batch 1, global batch 15360 sequences'
expected_text = 'Expected: not computed (no calibration for this GPU)'
range_text = ''
choice_text = ''
sol_text = 'Speed of light (the floor no run beats): 8.59 s per step, 23.4 days, $2.30M for the token budget'
verdict1 = 'Compute-bound: the busiest link (IB) needs 0.93 s per second of compute; at the speed of light its traffic with the micro-batches (0.90 s per second'
verdict2 = 'of compute) hides under compute (no stack says how much a real run overlaps); the step-end gradient sync and weight gather are exposed: 0.10 s of the 8.59 s step'
memory_text = 'Memory: 67.9 of 79.2 GiB per GPU on its heaviest pipeline rank (fits).'
goodput_text = 'Wall-clock: 23.7 days, $2.33M with failures and checkpoints (98.9% effective training); energy 1,631 MWh'
recipe_text = 'Recipe: the model file''s own: 15,360 x 4,096 tokens per step, 14.8T tokens'
footer = 'roofplan test, topo communication model, at the inputs of 1970-01-01 00:00 UTC; model data/models/deepseek-v3.ini, hardware data/hardware/h800.ini, sweep data/sweeps/default.ini'
wf_title = 'From the speed of light to the expected step'
rf_title = 'Roofline over InfiniBand, speed of light'
rf_xlabel = 'FLOPs per byte over IB, per GPU per step'
data = './summary.dat'
HAVE_WF = 0
NROWS = 0
WF_XMAX = 1
HAVE_POINT = 1

# Speed: gnuplot sets and clears a SIGFPE handler around every `using`
# expression of every point (three system calls each, most of its system
# time); this data is plain finite numbers, so nothing can trap. (`reset`
# below leaves it set.)
set datafile nofpe_trap

do for [out = 1:3] {
    if (out == 1) {
        set terminal pngcairo size 1600,1000 noenhanced font 'Sans,15' background rgb '#FFFFFF'
        set output './summary.png'
    }
    if (out == 2) {
        set terminal svg size 1600,1000 noenhanced font 'Sans,15' fontscale 1.333 background rgb '#FFFFFF'
        set output './summary.svg'
    }
    if (out == 3 && strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
        set terminal pdfcairo size 11.69in,7.31in noenhanced font 'Sans,15' fontscale 0.55
        set output './summary.pdf'
    }
    if (out < 3 || strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
        reset
        set multiplot
        # ---- the words, top ----
        set label 101 title_text at screen 0.02, screen 0.955 left font title_font front
        set label 102 plan_text at screen 0.02, screen 0.898 left font 'Sans Bold,18' front
        set label 113 plan_text2 at screen 0.02, screen 0.862 left font 'Sans Bold,18' front
        set label 103 expected_text at screen 0.02, screen 0.812 left font 'Sans Bold,17' textcolor rgb '#0077BB' front
        set label 104 range_text at screen 0.02, screen 0.778 left font ',14' textcolor rgb '#333333' front
        set label 116 choice_text at screen 0.02, screen 0.751 left font ',12' textcolor rgb '#333333' front
        set label 105 sol_text at screen 0.02, screen 0.722 left font ',15' textcolor rgb '#333333' front
        set label 106 verdict1 at screen 0.02, screen 0.688 left font ',15' front
        set label 107 verdict2 at screen 0.02, screen 0.658 left font ',15' front
        set label 108 memory_text at screen 0.02, screen 0.628 left font ',15' textcolor rgb '#333333' front
        set label 114 goodput_text at screen 0.02, screen 0.600 left font ',14' textcolor rgb '#333333' front
        set label 115 recipe_text at screen 0.02, screen 0.573 left font ',13' textcolor rgb '#333333' front
        set label 109 footer at screen 0.985, screen 0.014 right font ',11' textcolor rgb '#777777' front
        set border 3 lw 1.2
        set style fill solid 1.0 noborder
        # ---- the waterfall, bottom left ----
        set lmargin at screen 0.215
        set rmargin at screen 0.47
        set bmargin at screen 0.115
        set tmargin at screen 0.51
        set label 110 wf_title at screen 0.02, screen 0.545 left font 'Sans Bold,15' front
        if (HAVE_WF) {
            set xrange [0:WF_XMAX]
            set yrange [0.4:NROWS + 0.6]
            set xlabel 'seconds per step' font ',14'
            set xtics font ',13' nomirror
            
            set grid xtics lw 1 lc rgb '#DDDDDD'
            plot data index 0 using (($3 + $4) / 2):2:($3 < $4 ? $3 : $4):($3 < $4 ? $4 : $3):($2 - 0.32):($2 + 0.32):($1 == 0 ? 0x33BBEE : ($1 == 2 ? 0x0077BB : ($4 >= $3 ? 0xEE7733 : 0x009988))) with boxxyerror lc rgb variable notitle, \
                 data index 0 using ($3 > $4 ? $3 : $4):2:5 with labels left offset 0.5,0 font ',12' notitle
        } else {
            set label 111 'no calibration: the speed of light only' at screen 0.215, screen 0.33 left font ',14'
            unset border
            unset tics
            plot [0:1] [0:1] NaN notitle
            set border 3 lw 1.2
            set tics
        }
        unset label
        unset grid
        unset xlabel
        set xtics autofreq
        set ytics autofreq
        # ---- the roofline, bottom right ----
        set lmargin at screen 0.59
        set rmargin at screen 0.975
        set bmargin at screen 0.115
        set tmargin at screen 0.51
        set label 112 rf_title at screen 0.55, screen 0.545 left font 'Sans Bold,15' front
        set logscale xy 10
        set xrange [1000:1000000]
        set yrange [10:10000]
        set format x '%.0s%c'
        set format y '%g'
        set xlabel rf_xlabel font ',14'
        set ylabel 'attained TFLOP/s per GPU' font ',14' offset 1,0
        set xtics font ',13' nomirror
        set ytics font ',13' nomirror
        set grid xtics ytics lw 1 lc rgb '#DDDDDD'
        set key at graph 0.03, graph 0.97 left top Left reverse samplen 1 font ',13' box opaque
        set samples 400
        # the roofs are sampled with '+' and the key's entry for the
        # recommended plan is a `keyentry`: a function (or NaN) would set
        # a SIGFPE handler at each of the 400 samples, on every terminal
        plot '+' using 1:($1 >= 39580 ? 1979 : 1/0) with lines lw 1.5 dt (12,6) lc rgb '#555555' notitle, '+' using 1:($1 >= 29200 ? 1460 : 1/0) with lines lw 2.5 dt 1 lc rgb '#000000' notitle, '+' using 1:($1 >= 19780 ? 989 : 1/0) with lines lw 1.5 dt (12,6) lc rgb '#555555' notitle, '+' using 1:($1 >= 15160 ? 758 : 1/0) with lines lw 2.5 dt 1 lc rgb '#000000' notitle, '+' using 1:($1 * 0.05 < 1979 ? $1 * 0.05 : 1/0) with lines lw 2.5 lc rgb '#000000' notitle, data index 1 using 1:2 with points pt 7 ps 0.6 lc rgb '#9EB9D4' title 'a plan that fits', \
             keyentry with points pt 6 ps 3.2 lw 3 lc rgb '#D55E00' title 'recommended plan', \
             data index 2 using 1:2 with points pt 6 ps 3.2 lw 3 lc rgb '#D55E00' notitle
        unset multiplot
        set output
    }
}
