// Expected: CE. javac compiles it, but no class has public static void
// main(String[]): there is nothing to run, which is the submission's fault.
public class Solution {
    static void main(String[] args) {
        System.out.println(3);
    }
}
