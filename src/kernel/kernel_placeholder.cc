// placeholder until the kernel component lands
