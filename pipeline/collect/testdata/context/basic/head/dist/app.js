var a=2;
