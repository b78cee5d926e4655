"""A deliberately broken backend and op, registered in a subprocess to prove the suite catches them."""
