// Expected: CE (groovyc: a syntax error).
def (a, b) = System.in.newReader().readLine().trim().split(/\s+/).collect { it as long
println a + b
