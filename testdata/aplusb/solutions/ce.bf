Expected: CE: unbalanced brackets
+[[-]
