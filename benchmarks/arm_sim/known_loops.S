// Guest program for count_plugin_test.sh: marked regions of known instruction counts, no libc.
// Expected counts (markers not counted), in execution order:
//   region 0: 1 + 1000 * 4          = 4001  (a loop; start and stop in different blocks)
//   region 1: 3                             (three NOPs; start and stop in one block)
//   region 2: 0                             (adjacent markers)
//   regions 3-7: 2 each                     (a region inside a 5-iteration loop)
//   region 8: bl + 4 in leaf + ret  = 6     (a call and return)
//   region 9: 5 + svc + 2           = 8     (a system call inside the region: getpid)
        .text
        .global _start
_start:
        hint    #126
        mov     x1, #1000
1:      add     x2, x2, #1
        add     x3, x3, #1
        subs    x1, x1, #1
        b.ne    1b
        hint    #127

        hint    #126
        nop
        nop
        nop
        hint    #127

        hint    #126
        hint    #127

        mov     x4, #5
2:      hint    #126
        add     x5, x5, #2
        sub     x4, x4, #1
        hint    #127
        cbnz    x4, 2b

        hint    #126
        bl      leaf
        hint    #127

        hint    #126
        mov     x9, #1
        mov     x10, #2
        mov     x11, #3
        mov     x12, #4
        mov     x8, #172        // getpid
        svc     #0
        add     x9, x9, #1
        add     x10, x10, #1
        hint    #127

        mov     x0, #0
        mov     x8, #93         // exit
        svc     #0

leaf:
        add     x6, x6, #1
        add     x7, x7, #1
        add     x6, x6, x7
        add     x7, x7, x6
        ret
