
no-kind