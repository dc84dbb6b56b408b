// Expected: CE. The public class must be Main (the file is saved as
// Main.java), so javac refuses it.
public class Solution {
    public static void main(String[] args) {
        System.out.println(3);
    }
}
