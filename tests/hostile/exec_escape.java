// exec_escape.java: a Java submission (class Main) that reaches for native
// code outside the JVM: it copies /usr/bin/env to /tmp and /dev/shm, marks
// the copies executable and starts them. Prints "blocked" when no copy could
// start, else what a started copy printed.
import java.io.*;
import java.nio.file.*;

public class Main {
    static String tryRun(String where) {
        try {
            Path p = Paths.get(where);
            Files.copy(Paths.get("/usr/bin/env"), p, StandardCopyOption.REPLACE_EXISTING);
            p.toFile().setExecutable(true);
            Process proc = new ProcessBuilder(where, "ESCAPED=" + where).start();
            String out = new String(proc.getInputStream().readAllBytes());
            proc.waitFor();
            return out.contains("ESCAPED") ? "ran " + where : null;
        } catch (Exception e) {
            return null;
        }
    }

    public static void main(String[] args) {
        String a = tryRun("/tmp/escape"), b = tryRun("/dev/shm/escape2");
        System.out.println(a == null && b == null ? "blocked" : (a != null ? a : b));
    }
}
