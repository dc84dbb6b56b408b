// Expected: CE: a string is not an int.
void main()
{
    int x = "1";
}
