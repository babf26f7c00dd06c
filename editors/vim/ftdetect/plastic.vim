" Plastic model files.
autocmd BufRead,BufNewFile *.ode setfiletype plastic
