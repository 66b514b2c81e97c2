# Never ends on its own: stopped by the fuel budget or the wall-clock safety net.
n = 0
while True:
    n += 1
