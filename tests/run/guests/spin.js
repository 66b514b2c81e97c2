// Never ends on its own: stopped by the fuel budget.
let n = 0;
for (;;) n++;
