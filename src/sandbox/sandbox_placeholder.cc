// placeholder until the sandbox component lands
