// placeholder until the verify component lands
